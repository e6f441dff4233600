#!/usr/bin/env bash
# Rebuilds the default model shipped in scoring/src/main/resources/models/default/ (fraud-model.onnx and
# MODEL_CARD.md) from a seeded simulation, with the shared feature core and the trainer:
#
#   scoring/train-default-model.sh
#
# Every step is deterministic (fixed seeds, no clock), so a run gives the same bytes as the committed
# files; the script prints their SHA-256 to compare. Work files go to target/default-model/. About a
# minute on 2 cores (plus ./fraud's build on first use).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/target/default-model"
OUT="$ROOT/scoring/src/main/resources/models/default"

# 2000 users over 2 days with 5 % fraudulent transaction ids (the simulator's default is 1 %): about 500
# fraudulent 10-minute windows among ~67,000, enough for training, validation and holdout users alike.
USERS=2000
DURATION=2d
FRAUD_SHARE=0.05
SEED=42
WINDOW=10m

mkdir -p "$WORK" "$OUT"
"$ROOT/fraud" simulate --users "$USERS" --duration "$DURATION" --seed "$SEED" \
  --fraud-share "$FRAUD_SHARE" --out "$WORK/tx.jsonl"
# The simulate step built the project if needed; the others reuse that build.
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" features --transactions "$WORK/tx.jsonl" \
  --labels "$WORK/tx.jsonl.labels.jsonl" --window "$WINDOW" --out "$WORK/features.jsonl"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" train --features "$WORK/features.jsonl" --out "$OUT" --seed "$SEED" \
  --reproduce "scoring/train-default-model.sh   # simulate --users $USERS --duration $DURATION --seed $SEED --fraud-share $FRAUD_SHARE; features --window $WINDOW; train --seed $SEED"

(cd "$OUT" && sha256sum fraud-model.onnx MODEL_CARD.md)
