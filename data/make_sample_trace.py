"""Writes data/sample-trace.csv: the project's own small Tiresias-format
trace (not taken from any published trace). 60 jobs arriving over about 10
minutes; sizes 1-32 GPUs in roughly the AdaDUAL paper's mix; models of the
embedded profiles plus "bert-large", whose profile is in
data/sample-models.csv (illustrative numbers, not measurements).
Deterministic: /usr/bin/python3 data/make_sample_trace.py > data/sample-trace.csv"""

import random

rng = random.Random(19)
sizes = [1] * 16 + [2] * 8 + [4] * 12 + [8] * 14 + [16] * 6 + [32] * 4
models = ["vgg16", "resnet50", "inception3", "lstm-ptb", "bert-large"]
rng.shuffle(sizes)
t = 0
print("job_id,num_gpu,submit_time,iterations,model_name")
for i, g in enumerate(sizes):
    t += rng.randint(0, 20)
    print("job-%02d,%d,%d,%d,%s" % (i + 1, g, t, rng.randint(2000, 8000), rng.choice(models)))
