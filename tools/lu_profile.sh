#!/usr/bin/env bash
# Kernel time per kernel name (ncu, gpu__time_duration) of getrf (R=potrf: potrf) calls on the
# GPU: where a blocked factorization's time goes (panels or diagonal blocks, interchanges, trsm
# leaves, gemm). LUPROFILE="prec:n ..." (default r64:256), results in
# $OUT/<routine>[-<backend>]-profile-<prec>-<n>.txt; BACKEND (default native-strided) picks the
# bench row; LUBATCH problems per call (default: the bench's about 1 GB); LUUPLO lower or upper
# (potrf); LULAYOUT=row-major calls getrf in BLAS_RowMajor (the bench's --row-major). The kernels' sum against the bench's time of the same call (its `time_ms`, in the
# log) tells launch gaps from kernel time. From the device tool, after a build.
b=${BUILD:-build-gpu}/bench/blas_batched_bench
mkdir -p "${OUT:?}"
r=${R:-getrf} be=${BACKEND:-native-strided}
tag=$r; [ "$be" != native-strided ] && tag=$r-$be
extra=(); [ -n "${LUBATCH:-}" ] && extra+=(--batch "$LUBATCH") && tag=$tag-b$LUBATCH
[ -n "${LUUPLO:-}" ] && extra+=(--uplo "$LUUPLO") && tag=$tag-$LUUPLO
[ "${LULAYOUT:-}" = row-major ] && extra+=(--row-major) && tag=$tag-rm
for pn in ${LUPROFILE:-r64:256}; do
  p=${pn%%:*} n=${pn##*:}
  "$b" --routine $r --prec $p --sizes $n --device gpu --backend $be --reps 3 "${extra[@]}" | grep -E "^(rout|$r) "
  ncu --csv --metrics gpu__time_duration.sum "$b" --routine $r --prec $p --sizes $n --device gpu \
    --backend $be --reps 1 "${extra[@]}" > "$OUT/ncu-$tag-$p-$n.csv" 2> /dev/null
  python3 - "$OUT/ncu-$tag-$p-$n.csv" > "$OUT/$tag-profile-$p-$n.txt" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value")
tot = collections.Counter(); cnt = collections.Counter()
for r in rows[1:]:
    name = r[k].split("(")[0].split("<")[0] + ("<" + r[k].split("<")[1].split(">")[0][:40] + ">" if "<" in r[k] else "")
    tot[name] += float(r[v].replace(",", "")); cnt[name] += 1
all_ns = sum(tot.values())
for name, t in tot.most_common():
    print(f"{t/2e6:9.3f} ms/call {100*t/all_ns:5.1f}%  {cnt[name]//2:4d} launches/call  {name}")
PY
  echo "== $r $be $p n=$n"; cat "$OUT/$tag-profile-$p-$n.txt"
done
