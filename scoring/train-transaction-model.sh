#!/usr/bin/env bash
# Rebuilds the default per-transaction model shipped in scoring/src/main/resources/models/transaction/
# (fraud-model.onnx and MODEL_CARD.md) from a seeded simulation, with the shared feature core
# (TrailingFeatures) and the trainer:
#
#   scoring/train-transaction-model.sh
#
# The simulation is the window model's (scoring/train-default-model.sh): 2000 users over 2 days, seed 42,
# 5 % fraudulent transaction ids. Training rows are as of arrival (what the job computes when it scores a
# transaction); the same training on ideal features is measured on the as-of-arrival holdout and
# reported in the card (what training-serving skew costs the model). Every step is deterministic (fixed
# seeds, no clock), so a run gives the same bytes as the committed files; the script prints their
# SHA-256 to compare. Work files go to target/transaction-model/. A few minutes on 2 cores (plus
# ./fraud's build on first use).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/target/transaction-model"
OUT="$ROOT/scoring/src/main/resources/models/transaction"

USERS=2000
DURATION=2d
FRAUD_SHARE=0.05
SEED=42
TRAILING=10m

mkdir -p "$WORK" "$OUT"
"$ROOT/fraud" simulate --users "$USERS" --duration "$DURATION" --seed "$SEED" \
  --fraud-share "$FRAUD_SHARE" --out "$WORK/tx.jsonl"
# The simulate step built the project if needed; the others reuse that build.
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" features --transactions "$WORK/tx.jsonl" \
  --labels "$WORK/tx.jsonl.labels.jsonl" --per-transaction --trailing-window "$TRAILING" \
  --out "$WORK/as-of-arrival.jsonl"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" features --transactions "$WORK/tx.jsonl" \
  --labels "$WORK/tx.jsonl.labels.jsonl" --per-transaction --trailing-window "$TRAILING" \
  --semantics ideal --out "$WORK/ideal.jsonl"
FRAUD_SKIP_BUILD=1 "$ROOT/fraud" train --per-transaction --features "$WORK/as-of-arrival.jsonl" \
  --ideal-features "$WORK/ideal.jsonl" --out "$OUT" --seed "$SEED" \
  --reproduce "scoring/train-transaction-model.sh   # simulate --users $USERS --duration $DURATION --seed $SEED --fraud-share $FRAUD_SHARE; features --per-transaction --trailing-window $TRAILING (as-of-arrival, and --semantics ideal); train --per-transaction --ideal-features --seed $SEED"

(cd "$OUT" && sha256sum fraud-model.onnx MODEL_CARD.md)
