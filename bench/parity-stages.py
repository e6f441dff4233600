#!/usr/bin/env python3
"""Splits the Java execution samples of a parity run's JFR recording by stage.

    python3 bench/parity-stages.py parity.jfr [--json]

Reads `jfr print --stack-depth 64 --events jdk.ExecutionSample` (streamed, not loaded whole) and gives each sample the
first stage whose rule matches its stack (leaf to root) or thread, in the order of STAGES: so a sample
recomputing features inside the judge counts as recompute, decoding Avro inside a sort as sort. Native
time (RocksDB is not used in BATCH; the ONNX runtime's own threads), GC and JIT are not Java samples.
"""
import json
import re
import subprocess
import sys
from collections import Counter

# (stage, frame pattern or None, thread-name pattern or None), first match wins.
STAGES = [
    ("re-score (ONNX)", re.compile(r"ai\.onnxruntime|VerdictScoring|TransactionScorer|OnnxPaneScorer"), None),
    ("recompute (feature core)", re.compile(r"org\.fraudpipe\.job\.features\."), None),
    ("fold + report", re.compile(r"org\.fraudpipe\.parity\.report\.|WindowReportFold|TransactionJudgeOperator\.finish"), None),
    ("judge", re.compile(r"WindowJudge|TransactionJudge|VerdictFunction|PartitionWatermarkBounds|DeadLetterAttribution"), None),
    ("sort (BATCH keyed input)", re.compile(r"\.sort\.|SortingDataInput|ExternalSorter"), None),
    ("read + decode (sources)", re.compile(r"AvroContainerFormat|org\.apache\.avro\.file\.|connector\.file\."), re.compile(r"^Source")),
    ("shuffle (network, serializers)", re.compile(r"runtime\.io\.network|typeutils|AvroSerializer|runtime\.io\."), None),
    ("client (main: planning, merge)", None, re.compile(r"^main$")),
]
OTHER = "other (Flink runtime, client)"


def samples(path):
    proc = subprocess.Popen(
        ["jfr", "print", "--stack-depth", "64", "--events", "jdk.ExecutionSample", path],
        stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    thread, frames, in_stack = "", [], False
    for line in proc.stdout:
        s = line.strip()
        if s.startswith("jdk.ExecutionSample"):
            thread, frames, in_stack = "", [], False
        elif s.startswith("sampledThread"):
            m = re.search(r'"(.*)"', s)
            thread = m.group(1) if m else ""
        elif s.startswith("stackTrace = ["):
            in_stack = True
        elif in_stack and s.startswith("]"):
            in_stack = False
            yield thread, frames
        elif in_stack:
            frames.append(s)
    proc.wait()


def stage(thread, frames):
    for name, frame_rule, thread_rule in STAGES:
        if frame_rule and any(frame_rule.search(f) for f in frames):
            return name
        if thread_rule and thread_rule.search(thread):
            return name
    return OTHER


def main():
    counts = Counter(stage(t, f) for t, f in samples(sys.argv[1]))
    total = sum(counts.values()) or 1
    names = [s[0] for s in STAGES] + [OTHER]
    if "--json" in sys.argv[2:]:
        shares = {n: round(100.0 * counts[n] / total, 1) for n in names}
        print(json.dumps({"javaSamples": total, "sharePercent": shares}))
        return
    print(f"{total} Java execution samples")
    for name in names:
        print(f"  {name:32s} {100.0 * counts[name] / total:5.1f} %")


if __name__ == "__main__":
    main()
