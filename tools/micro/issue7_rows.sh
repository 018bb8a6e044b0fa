# issue 7's rows at HEAD (group API against its floor, strided, cuBLAS; scatter; variable sizes; 1000 x n = 4)
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=$BUILD/bench/blas_batched_bench; o=$OUT/i7; mkdir -p $o
for p in r64 r32; do
  $b --routine gemm --prec $p --sizes 2,4,8,16,32,64,128,256 --device gpu --backend native,native-strided,cublas-direct --csv $o/grp-$p.csv > $o/grp-$p.txt 2>&1
  $b --routine gemm --prec $p --sizes 2,4,8,16,32,64,128,256 --scatter --device gpu --backend native,cublas-direct --tag scatter --csv $o/sc-$p.csv > $o/sc-$p.txt 2>&1
  $b --routine gemm --prec $p --variable-sizes 2:32 --batch 100000 --device gpu --csv $o/var-$p.csv > $o/var-$p.txt 2>&1
  $b --routine gemm --prec $p --sizes 4 --batch 1000 --device gpu --backend native,native-strided --reps 50 --csv $o/k-$p.csv > $o/k-$p.txt 2>&1
done
cd $o && tar czf ../i7.tgz . && cd .. && rm -rf $o
