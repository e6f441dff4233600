#!/usr/bin/env bash
# Rebuilds the challenger models shipped in scoring/src/main/resources/models/challenger/ (a window
# model and a per-transaction model, each fraud-model.onnx with its MODEL_CARD.md): what the demo
# publishes as challengers half-way through its traffic (./fraud model publish, then shadow), so that
# its parity report compares champion and challenger on live traffic.
#
#   scoring/train-challenger-models.sh
#
# They stand for next week's retrain: the simulation of the default models (scoring/train-default-model.sh,
# scoring/train-transaction-model.sh) with another seed (other users, other fraud bursts), trained by
# logistic regression only. Every step is deterministic (fixed seeds, no clock): a run gives the same
# bytes as the committed files; the script prints their SHA-256 to compare. Work files go to
# target/challenger-models/. A few minutes on 2 cores (plus ./fraud's build on first use).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/target/challenger-models"
OUT="$ROOT/scoring/src/main/resources/models/challenger"

USERS=2000
DURATION=2d
FRAUD_SHARE=0.05
SEED=43
WINDOW=10m
ALGORITHM=logistic-regression

mkdir -p "$WORK" "$OUT/window" "$OUT/transaction"
"$ROOT/fraud" simulate --users "$USERS" --duration "$DURATION" --seed "$SEED" \
  --fraud-share "$FRAUD_SHARE" --out "$WORK/tx.jsonl"
# The simulate step built the project if needed; the others reuse that build.
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" features --transactions "$WORK/tx.jsonl" \
  --labels "$WORK/tx.jsonl.labels.jsonl" --window "$WINDOW" --out "$WORK/features.jsonl"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" train --features "$WORK/features.jsonl" --out "$OUT/window" \
  --seed "$SEED" --algorithm "$ALGORITHM" \
  --reproduce "scoring/train-challenger-models.sh   # simulate --users $USERS --duration $DURATION --seed $SEED --fraud-share $FRAUD_SHARE; features --window $WINDOW; train --seed $SEED --algorithm $ALGORITHM"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" features --transactions "$WORK/tx.jsonl" \
  --labels "$WORK/tx.jsonl.labels.jsonl" --per-transaction --trailing-window "$WINDOW" \
  --out "$WORK/as-of-arrival.jsonl"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" train --per-transaction --features "$WORK/as-of-arrival.jsonl" \
  --out "$OUT/transaction" --seed "$SEED" --algorithm "$ALGORITHM" \
  --reproduce "scoring/train-challenger-models.sh   # simulate --users $USERS --duration $DURATION --seed $SEED --fraud-share $FRAUD_SHARE; features --per-transaction --trailing-window $WINDOW; train --per-transaction --seed $SEED --algorithm $ALGORITHM"

(cd "$OUT" && sha256sum window/fraud-model.onnx window/MODEL_CARD.md \
  transaction/fraud-model.onnx transaction/MODEL_CARD.md)
