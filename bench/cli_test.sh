#!/usr/bin/env bash
# The bench's command line (CTest bench_cli): --help names every option the parser accepts, bad
# values exit non-zero with one line on stderr and no row, columns that do not apply are empty
# in the CSV, --one-per-group and --compare-groups report the right group counts, native-strided
# is refused where it cannot run and checked where it can, the device-only backends (native-devptr,
# cublas-batched, ...) and --nonblocking-loop are refused or skipped in host mode, and the device
# routines (getrf, getri, potrf, geqrf, trsm, trmm) refuse the options they do not take. Host mode
# only (--device host, or --device gpu where the command line is refused before any GPU work), so
# it runs the same with or without a GPU; every run is tiny.
#   bench/cli_test.sh <blas_batched_bench> <bench.cpp>
set -uo pipefail
bench=${1:?usage: cli_test.sh <blas_batched_bench> <bench.cpp>}
src=${2:?usage: cli_test.sh <blas_batched_bench> <bench.cpp>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# A result row on stdout starts with a routine name.
rows() { grep -cE '^(gemm|trsm|trmm|getrf|getri|potrf|geqrf) ' "$1"; }
# Field COL of CSV line ROW (1 = first row after the header), by column name.
field() {
  awk -F, -v row="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    NR == row + 1 { if (!c) exit 1; print $c }' "$1"
}

# --help and -h: exit 0, every option of the parser mentioned.
for h in --help -h; do
  "$bench" $h >"$tmp/help" 2>"$tmp/err"; rc=$?
  [ $rc -eq 0 ] || fail "$h exited $rc"
  [ -s "$tmp/help" ] || fail "$h printed nothing on stdout"
done
opts=$(grep -oE 'a == "-[-a-z]+"' "$src" | grep -oE '"-[-a-z]+"' | tr -d '"' | sort -u)
[ "$(echo "$opts" | wc -l)" -ge 15 ] || fail "found only $(echo "$opts" | wc -l) options in $src"
for opt in $opts --help -h; do
  grep -qE -- "(^|[ ,])$opt([ ,]|$)" "$tmp/help" || fail "--help does not mention $opt"
done
# ... every backend, native-strided among them, and the non-blocking loop's row names, ...
for b in native native-strided native-devptr vendor reference auto cublas-direct cublas-batched vendor-grouped \
  native-strided-nb; do
  grep -qE -- "(^|[ ,])$b([ ,:;]|$)" "$tmp/help" || fail "--help does not mention the backend $b"
done
grep -q 'strided/nonblocking-loop' "$tmp/help" || fail "--help does not name the non-blocking loop's layout"
# ... and the device rows' floor columns.
for col in host_read_gbps h2d_gbps floor_ms call_floor_ms pct_floor notes; do
  grep -qw -- "$col" "$tmp/help" || fail "--help does not describe the column $col"
done

# Bad command lines: exit 2 (--device gpu without a GPU: 1), one line on stderr, no row, no CSV.
base=(--routine trsm --device host --prec r64 --sizes 2 --batch 10 --reps 1 --backend native --csv "$tmp/bad.csv")
bad=(
  "--bogus" "-x" "stray" "--csv" "--tag" "--sizes" "--batch --check"
  "--sizes abc" "--sizes 0" "--sizes -3" "--sizes ''" "--sizes 2,,4" "--sizes 2.5"
  "--batch -5" "--batch 0" "--batch 1e3" "--batch 99999999999" "--batch x"
  "--gb 0" "--gb -1" "--gb abc" "--gb nan" "--reps 0" "--reps -1" "--reps two"
  "--backend bogus" "--backend native,bogus" "--routine bogus" "--routine trsm,bogus" "--prec r99" "--prec ''"
  "--device bogus" "--backend cublas-direct" "--backend vendor-grouped,cublas-direct"
  "--backend native-devptr" "--backend cublas-batched" "--backend cublas-batched,native-devptr"
  "--groups 2" "--groups x" "--tag a,b"
  # --variable-sizes LO:HI: the form, the range, and what it does not combine with (trsm: gemm only).
  "--variable-sizes 5:2" "--variable-sizes x" "--variable-sizes 4" "--variable-sizes 2:" "--variable-sizes :8"
  "--variable-sizes 0:4" "--variable-sizes 2:4:8" "--variable-sizes -2:4" "--variable-sizes ''" "--variable-sizes"
  "--variable-sizes 2:4" "--routine gemm --variable-sizes 2:4 --sizes 8" "--routine gemm --variable-sizes 2:4 --mixed"
  "--routine gemm --variable-sizes 2:4 --one-per-group" "--routine gemm --variable-sizes 2:4 --scatter"
  "--routine gemm --variable-sizes 2:4 --gb 1" "--routine gemm --variable-sizes 2:4 --backend native,cublas-direct"
  "--routine gemm --device host --variable-sizes 2:4"
  "--routine gemm --variable-sizes 2:4 --backend native,cublas-batched"
  # native-strided: gemm only (trsm has no other backend here), one group of evenly spaced matrices.
  "--backend native-strided" "--backend native-strided,cublas-direct" "--routine gemm,trsm --backend native-strided"
  "--routine gemm --backend native-strided --scatter" "--routine gemm --backend native,native-strided --scatter"
  "--routine gemm --backend native-strided --mixed" "--routine gemm --backend native-strided --sizes 2,3 --groups 2"
  "--routine gemm --backend native-strided --one-per-group" "--routine gemm --backend native-strided --compare-groups"
  "--routine gemm --backend native-strided --variable-sizes 2:4 --batch 10"
)
# --device gpu without a GPU (whether or not the build has CUDA) is an error too, for every routine
# with a device mode.
if ! nvidia-smi -L >/dev/null 2>&1; then
  bad+=("--routine gemm --device gpu" "--routine getrf --device gpu" "--routine getri --device gpu"
    "--routine potrf --device gpu" "--routine geqrf --device gpu" "--routine trsm --device gpu"
    "--routine trmm --device gpu")
fi
for args in "${bad[@]}"; do
  rm -f "$tmp/bad.csv"
  eval "extra=($args)"
  "$bench" "${base[@]}" "${extra[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  what="bench ... $args"
  want=2
  [[ $args != *"--device gpu"* ]] || want=1
  [ $rc -eq $want ] || fail "$what: exit $rc, not $want"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$what: expected one line on stderr, got: $(cat "$tmp/err")"
  grep -q '^blas_batched_bench: ' "$tmp/err" || fail "$what: no message on stderr"
  [ "$(rows "$tmp/out")" -eq 0 ] || fail "$what: printed a result row"
  [ ! -e "$tmp/bad.csv" ] || fail "$what: wrote a CSV"
done

# --nonblocking-loop: device mode, gemm, one size and --batch, rows of its own; each refusal says why.
nbl=(--routine gemm --prec r64 --sizes 4 --batch 10 --reps 1 --nonblocking-loop 5 --csv "$tmp/bad.csv")
nbad=(
  "--device host|device mode only" "--sizes 4,8|one size" "--mixed|--mixed" "--sizes 4,8 --groups 2|--groups"
  "--scatter|--scatter" "--one-per-group|--one-per-group" "--compare-groups|--compare-groups" "--gb 1|--gb"
  "--backend native|--backend" "--backend native-strided-nb|unknown" "--routine gemm,potrf|gemm only"
  "--routine potrf|gemm only" "--nonblocking-loop 0|must be >= 1" "--nonblocking-loop x|not an integer"
  "--nonblocking-loop|needs a value"
)
for case in "${nbad[@]}"; do
  args=${case%%|*} why=${case#*|}
  rm -f "$tmp/bad.csv"
  eval "extra=($args)"
  "$bench" "${nbl[@]}" "${extra[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  what="bench --nonblocking-loop 5 ... $args"
  [ $rc -eq 2 ] || fail "$what: exit $rc, not 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$what: expected one line on stderr, got: $(cat "$tmp/err")"
  grep -q -- "$why" "$tmp/err" || fail "$what: stderr does not say '$why': $(cat "$tmp/err")"
  [ "$(rows "$tmp/out")" -eq 0 ] || fail "$what: printed a result row"
  [ ! -e "$tmp/bad.csv" ] || fail "$what: wrote a CSV"
done
# Device getrf/getri/potrf/geqrf: one size per call of back-to-back matrices, and no gemm-only
# backend. With --device gpu these are command line errors (exit 2) whether or not there is a GPU.
lu=(--prec r64 --sizes 2 --batch 10 --reps 1 --device gpu --csv "$tmp/bad.csv")
lbad=(
  "--routine getrf --sizes 2,3 --mixed|--mixed: getrf runs in device mode"
  "--routine getri --sizes 2,3 --groups 2|--groups: getri runs in device mode"
  "--routine getrf --one-per-group|--one-per-group: getrf runs in device mode"
  "--routine gemm,getri --compare-groups|--compare-groups: getri runs in device mode"
  "--routine getrf --scatter|--scatter: getrf runs in device mode"
  "--routine getri --backend cublas-batched,vendor-grouped|nothing to run for getri in device mode"
  "--routine getrf --backend reference|nothing to run for getrf in device mode"
  "--routine getrf --backend native-strided --scatter|not with --scatter"
  "--routine getrf --device host --backend native-strided|nothing to run for getrf"
  "--routine potrf --sizes 2,3 --mixed|--mixed: potrf runs in device mode"
  "--routine geqrf --one-per-group|--one-per-group: geqrf runs in device mode"
  "--routine gemm,potrf --compare-groups|--compare-groups: potrf runs in device mode"
  "--routine trsm --scatter|--scatter: trsm runs in device mode"
  "--routine geqrf --scatter|--scatter: geqrf runs in device mode"
  "--routine potrf --backend cublas-batched|nothing to run for potrf in device mode"
  "--routine geqrf --backend reference,vendor-grouped|nothing to run for geqrf in device mode"
  "--routine potrf,geqrf --device host --backend native-strided|nothing to run for potrf,geqrf"
  "--routine getrf,potrf --row-major|--row-major: --routine getrf, getri or getrf_getri only"
  "--routine getrf --row-major --device host|--row-major: device mode only"
)
for case in "${lbad[@]}"; do
  args=${case%%|*} why=${case#*|}
  rm -f "$tmp/bad.csv"
  eval "extra=($args)"
  "$bench" "${lu[@]}" "${extra[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  what="bench --device gpu ... $args"
  [ $rc -eq 2 ] || fail "$what: exit $rc, not 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$what: expected one line on stderr, got: $(cat "$tmp/err")"
  grep -q -- "$why" "$tmp/err" || fail "$what: stderr does not say '$why': $(cat "$tmp/err")"
  [ "$(rows "$tmp/out")" -eq 0 ] || fail "$what: printed a result row"
  [ ! -e "$tmp/bad.csv" ] || fail "$what: wrote a CSV"
done

# Without --sizes (three by default), without --batch, with --variable-sizes in place of --sizes.
for args in "--sizes 4|needs --batch" "--batch 10|one size" "--variable-sizes 2:4 --batch 10|--variable-sizes"; do
  eval "extra=(${args%%|*})"
  "$bench" --routine gemm --reps 1 --nonblocking-loop 5 "${extra[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "--nonblocking-loop ${args%%|*}: exit $rc, not 2"
  grep -q -- "^blas_batched_bench: --nonblocking-loop: .*${args#*|}" "$tmp/err" ||
    fail "--nonblocking-loop ${args%%|*}: stderr does not say '${args#*|}': $(cat "$tmp/err")"
done
# A valid loop where no GPU is usable (--device auto): exit 2, nothing run.
if ! nvidia-smi -L >/dev/null 2>&1; then
  rm -f "$tmp/bad.csv"
  "$bench" "${nbl[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "--nonblocking-loop without a GPU: exit $rc, not 2"
  grep -q '^blas_batched_bench: --nonblocking-loop: device mode only' "$tmp/err" ||
    fail "--nonblocking-loop without a GPU: no message: $(cat "$tmp/err")"
  [ "$(rows "$tmp/out")" -eq 0 ] || fail "--nonblocking-loop without a GPU: printed a result row"
  [ ! -e "$tmp/bad.csv" ] || fail "--nonblocking-loop without a GPU: wrote a CSV"
fi

# A tiny valid run: one row, error empty (no check), no "nan" anywhere.
ok=(--routine trsm --device host --prec r64 --sizes 2 --batch 1000 --reps 2 --backend native)
"$bench" "${ok[@]}" --csv "$tmp/a.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "valid run exited $rc: $(cat "$tmp/err")"
[ "$(rows "$tmp/out")" -eq 1 ] || fail "valid run: expected one row, got: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/a.csv")" -eq 2 ] || fail "valid run: expected header + one CSV line"
[ -z "$(field "$tmp/a.csv" 1 error)" ] || fail "valid run: error field not empty: $(field "$tmp/a.csv" 1 error)"
[ -z "$(field "$tmp/a.csv" 1 kernel_ms)" ] || fail "valid run: kernel_ms not empty on host"
[ -n "$(field "$tmp/a.csv" 1 time_ms)" ] || fail "valid run: time_ms empty"
[ "$(field "$tmp/a.csv" 1 groups)" = 1 ] || fail "valid run: groups != 1"
! grep -qi nan "$tmp/a.csv" "$tmp/out" || fail "valid run: 'nan' in the output"
head -n1 "$tmp/a.csv" | grep -qx 'device,routine,prec,backend,m,n,k,batch,groups,sizes,time_ms,kernel_ms,gflops,gbps,pct_bw,kernel_pct_bw,vs_vendor,vs_cublas,vs_grouped,vs_reference,error,overhead,copy_gbps,min_ms,max_ms,reps,rot,layout,tag,host_read_gbps,h2d_gbps,floor_ms,call_floor_ms,pct_floor,notes' ||
  fail "CSV header changed"
# The floor columns are device-mode only: empty on host rows.
for col in host_read_gbps h2d_gbps floor_ms call_floor_ms pct_floor notes; do
  [ -z "$(field "$tmp/a.csv" 1 $col)" ] || fail "valid run: $col not empty on host"
done

# With --check: the reference row first (error empty), then native with an error.
"$bench" "${ok[@]}" --check --csv "$tmp/b.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "--check run exited $rc: $(cat "$tmp/err")"
[ "$(field "$tmp/b.csv" 1 backend)" = reference ] || fail "--check: first row is not the reference"
[ -z "$(field "$tmp/b.csv" 1 error)" ] || fail "--check: the reference row has an error value"
[ "$(field "$tmp/b.csv" 2 backend)" = native ] || fail "--check: second row is not native"
e=$(field "$tmp/b.csv" 2 error)
[ -n "$e" ] || fail "--check: the native row's error is empty"
awk -v e="$e" 'BEGIN { exit !(e + 0 < 1e-10) }' || fail "--check: native error $e too large"

# A device-only backend next to a host one: a note, then the host row.
"$bench" "${ok[@]}" --backend native,cublas-direct >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "native,cublas-direct exited $rc"
grep -q 'cublas-direct: device mode only' "$tmp/err" || fail "native,cublas-direct: no note on stderr"
[ "$(rows "$tmp/out")" -eq 1 ] || fail "native,cublas-direct: expected one row"
# The same for native-devptr and cublas-batched, on trsm and on gemm in host mode (checked).
"$bench" "${ok[@]}" --backend native,native-devptr,cublas-batched >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "native,native-devptr,cublas-batched exited $rc"
grep -q 'native-devptr,cublas-batched: device mode only' "$tmp/err" ||
  fail "native,native-devptr,cublas-batched: no note on stderr: $(cat "$tmp/err")"
[ "$(rows "$tmp/out")" -eq 1 ] || fail "native,native-devptr,cublas-batched: expected one row"
"$bench" --routine gemm --device host --prec r64 --sizes 3 --batch 100 --reps 1 --check \
  --backend native-devptr,native,cublas-batched --csv "$tmp/dp.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "gemm --device host native-devptr exited $rc: $(cat "$tmp/err")"
grep -q 'native-devptr,cublas-batched: device mode only' "$tmp/err" || fail "gemm --device host native-devptr: no note"
[ "$(cut -d, -f4 "$tmp/dp.csv" | tail -n +2 | tr '\n' ' ')" = "reference native " ] ||
  fail "gemm --device host native-devptr: rows $(cut -d, -f4 "$tmp/dp.csv" | tail -n +2 | tr '\n' ' ')"

# native-strided (host mode): the strided entry point on the same matrices, checked against the
# reference like the others; one group, layout strided.
ns=(--routine gemm --device host --prec r64 --sizes 3 --batch 500 --reps 2 --backend native,native-strided --check)
"$bench" "${ns[@]}" --csv "$tmp/s.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "native-strided exited $rc: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/s.csv")" -eq 4 ] || fail "native-strided: expected 3 rows (reference, native, native-strided)"
[ "$(field "$tmp/s.csv" 3 backend)" = native-strided ] || fail "native-strided: third row is $(field "$tmp/s.csv" 3 backend)"
[ "$(field "$tmp/s.csv" 3 groups)" = 1 ] || fail "native-strided: groups not 1"
[ "$(field "$tmp/s.csv" 3 batch)" = 500 ] || fail "native-strided: batch not 500"
[ "$(field "$tmp/s.csv" 3 layout)" = strided ] || fail "native-strided: layout not strided"
e=$(field "$tmp/s.csv" 3 error)
[ -n "$e" ] || fail "native-strided --check: error empty"
awk -v e="$e" 'BEGIN { exit !(e + 0 < 1e-12) }' || fail "native-strided --check: error $e too large"
# Several sizes: one strided call per size.
"$bench" "${ns[@]}" --sizes 2,5 --backend native-strided --csv "$tmp/s2.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "native-strided --sizes 2,5 exited $rc: $(cat "$tmp/err")"
[ "$(grep -c ',native-strided,' "$tmp/s2.csv")" -eq 2 ] || fail "native-strided --sizes 2,5: expected 2 rows"
# Next to a routine other than gemm: a note, then trsm's native row and gemm's two rows.
"$bench" --routine trsm,gemm --device host --prec r64 --sizes 2 --batch 100 --reps 1 --backend native,native-strided \
  >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "trsm,gemm native,native-strided exited $rc: $(cat "$tmp/err")"
grep -q 'native-strided: skipped for trsm' "$tmp/err" || fail "trsm,gemm native-strided: no note on stderr"
[ "$(rows "$tmp/out")" -eq 3 ] || fail "trsm,gemm native,native-strided: expected 3 rows, got: $(cat "$tmp/out")"
! grep -qE '^trsm +r64 +native-strided' "$tmp/out" || fail "trsm,gemm: a trsm native-strided row"

# getrf and getri in host mode: native-strided skipped with a note, the reference and native rows
# checked (getri's native row inverts the native getrf's factors of the same matrices).
"$bench" --routine getrf,getri --device host --prec r64 --sizes 3 --batch 200 --reps 1 --check \
  --backend native,native-strided --csv "$tmp/lu.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "getrf,getri --device host exited $rc: $(cat "$tmp/err")"
grep -q 'native-strided: skipped for getrf,getri' "$tmp/err" || fail "getrf,getri --device host: no note: $(cat "$tmp/err")"
[ "$(cut -d, -f2,4 "$tmp/lu.csv" | tail -n +2 | tr '\n' ' ')" = "getrf,reference getrf,native getri,reference getri,native " ] ||
  fail "getrf,getri --device host: rows $(cut -d, -f2,4 "$tmp/lu.csv" | tail -n +2 | tr '\n' ' ')"
for r in 2 4; do
  e=$(field "$tmp/lu.csv" $r error)
  awk -v e="$e" 'BEGIN { exit !(e != "" && e + 0 < 1e-12) }' || fail "getrf,getri --device host: row $r error '$e'"
done

# potrf and geqrf in host mode: the same (potrf factors the lower triangle, geqrf writes tau).
"$bench" --routine potrf,geqrf --device host --prec r64 --sizes 3 --batch 200 --reps 1 --check \
  --backend native,native-strided --csv "$tmp/pq.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "potrf,geqrf --device host exited $rc: $(cat "$tmp/err")"
grep -q 'native-strided: skipped for potrf,geqrf' "$tmp/err" || fail "potrf,geqrf --device host: no note: $(cat "$tmp/err")"
[ "$(cut -d, -f2,4 "$tmp/pq.csv" | tail -n +2 | tr '\n' ' ')" = "potrf,reference potrf,native geqrf,reference geqrf,native " ] ||
  fail "potrf,geqrf --device host: rows $(cut -d, -f2,4 "$tmp/pq.csv" | tail -n +2 | tr '\n' ' ')"
for r in 2 4; do
  e=$(field "$tmp/pq.csv" $r error)
  awk -v e="$e" 'BEGIN { exit !(e != "" && e + 0 < 1e-12) }' || fail "potrf,geqrf --device host: row $r error '$e'"
done

# --one-per-group: each problem its own group (per size, and with --mixed over all sizes).
opg=(--routine trsm --device host --prec r64 --sizes 2,3 --batch 50 --reps 1 --backend native --check --one-per-group)
"$bench" "${opg[@]}" --csv "$tmp/c.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "--one-per-group exited $rc: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/c.csv")" -eq 5 ] || fail "--one-per-group: expected 4 rows (2 sizes x reference, native)"
for r in 1 2 3 4; do
  [ "$(field "$tmp/c.csv" $r groups)" = 50 ] || fail "--one-per-group: row $r groups $(field "$tmp/c.csv" $r groups), not 50"
  [ "$(field "$tmp/c.csv" $r batch)" = 50 ] || fail "--one-per-group: row $r batch is not 50"
  [ "$(field "$tmp/c.csv" $r layout)" = strided/one-per-group ] || fail "--one-per-group: row $r layout"
done
[ -n "$(field "$tmp/c.csv" 2 error)" ] || fail "--one-per-group --check: native error empty"
"$bench" "${opg[@]}" --mixed --csv "$tmp/d.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "--one-per-group --mixed exited $rc: $(cat "$tmp/err")"
[ "$(field "$tmp/d.csv" 2 groups)" = 100 ] || fail "--one-per-group --mixed: groups $(field "$tmp/d.csv" 2 groups), not 100"
[ "$(field "$tmp/d.csv" 2 sizes)" = 2/3 ] || fail "--one-per-group --mixed: sizes not 2/3"

# --compare-groups: the call as given (1 group), then one per problem (50), then the ratio line.
"$bench" --routine trsm --device host --prec r64 --sizes 2 --batch 50 --reps 1 --backend native --compare-groups \
  --csv "$tmp/e.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "--compare-groups exited $rc: $(cat "$tmp/err")"
[ "$(field "$tmp/e.csv" 1 groups)" = 1 ] || fail "--compare-groups: first row groups not 1"
[ "$(field "$tmp/e.csv" 2 groups)" = 50 ] || fail "--compare-groups: second row groups not 50"
grep -qE '^one-per-group: trsm r64 .*50 groups of one vs 1 group.* native [0-9.]+x' "$tmp/out" ||
  fail "--compare-groups: no ratio line: $(cat "$tmp/out")"

if [ $failures -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "bench CLI: all checks passed"
