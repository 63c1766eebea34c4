#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The end-to-end rows of docs/PERFORMANCE.md ("End to end (issue #28 ...)") in one device run: the probe, the
# bench FILE rows and the render / batch commands. Files: $OUT/log.txt and the bench JSON. Needs scripts/device-bundle
# (devrun/) with ../shared/tools/vkprobe built into devrun/vkprobe. Device tool:
#   run: "source .gl/env.sh && bash bench/h200_end_to_end.sh"   carry: [".gl", "devrun"]
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/devrun/lib
M=$PWD/devrun/morphkit
W=/tmp/w; rm -rf $W; mkdir -p $W
log=$OUT/log.txt
step() { echo "== $*" >>$log; }
step probe; (cd devrun/vkprobe && ./vkprobe 20000 52 && ./vkprobe 1000000 64) >>$log 2>&1
nproc >>$log; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>$log 2>&1
$M make-demo $W/face20k.glb --vertices 20000 --targets 52 >>$log 2>&1
$M make-demo $W/face200k.glb --vertices 200000 --targets 52 >>$log 2>&1
step r256; $M bench $W/face20k.glb --anim talk --frames 400 --paths render --size 256x256 --json > $OUT/r256.json 2>>$log
step r1024; $M bench $W/face20k.glb --anim talk --frames 120 --paths render --size 1024x1024 --json > $OUT/r1024.json 2>>$log
step p20k; $M bench $W/face20k.glb --anim talk --frames 1000 --paths fast,gpu --json > $OUT/p20k.json 2>>$log
step p200k; $M bench $W/face200k.glb --anim talk --frames 200 --paths fast,gpu --json > $OUT/p200k.json 2>>$log
for spec in "256x256 1000" "256x256 10000" "1024x1024 240"; do
  set -- $spec
  step "render $1 $2"
  rm -rf $W/out; /usr/bin/time -f "wall %e s, peak RSS %M KB" $M render $W/face20k.glb --anim talk --frames 0:$2 --size $1 --out $W/out --no-video --json >>$log 2>&1
done
for size in 256 1024; do
  n=1000; [ $size = 1024 ] && n=240
  cat > $W/job$size.json <<J
{"assets": ["face20k.glb"], "out": "b$size", "animations": ["talk"], "frames": [0, $n], "outputs": ["frames"], "size": [$size, $size], "chunk": $n, "force": true}
J
  step "batch $size $n frames, 1 worker"
  /usr/bin/time -f "wall %e s, peak RSS %M KB" $M batch $W/job$size.json --workers 1 --json > $OUT/batch$size.json 2>>$log
done
step done
