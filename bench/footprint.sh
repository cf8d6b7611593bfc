#!/usr/bin/env bash
# Fresh install size and cold import time of each contender (BENCHMARKS.md, "Against the frameworks").
#   bash bench/footprint.sh        (from the repository root; needs the npm registry and bench/node_modules)
# Size: `du` of a fresh `npm install` of just that contender's packages into an empty folder.
# Cold import: a new `node` process importing the entry points from bench/node_modules, median of 7.
set -euo pipefail
cd "$(dirname "$0")"
declare -A sets=(
  [openai]="openai@6.49.0 zod@4.6.7"
  [langchain]="langchain@1.5.14 @langchain/core@1.4.0 @langchain/openai@1.5.8 zod@4.6.7"
  [langchain-classic]="@langchain/classic@1.0.43 @langchain/core@1.4.0 @langchain/openai@1.5.8 zod@4.6.7"
  [ai-sdk]="ai@6.0.324 @ai-sdk/openai@3.0.141 zod@4.6.7"
  [openai-agents]="@openai/agents@0.14.3 zod@4.6.7"
)
declare -A imports=(
  [openai]="openai zod"
  [langchain]="langchain @langchain/openai"
  [langchain-classic]="@langchain/classic/agents @langchain/core/prompts @langchain/openai"
  [ai-sdk]="ai @ai-sdk/openai"
  [openai-agents]="@openai/agents"
)
echo "| contender | packages | fresh install (MiB) | cold import ms (median of 7) |"
echo "|---|---|--:|--:|"
for name in openai ai-sdk openai-agents langchain-classic langchain; do
  dir=$(mktemp -d)
  (cd "$dir" && npm init -y >/dev/null 2>&1 && npm install --no-audit --no-fund --loglevel=error ${sets[$name]} >/dev/null 2>&1)
  size=$(du -sk "$dir/node_modules" | awk '{printf "%.1f", $1/1024}')
  rm -rf "$dir"
  script="const t=performance.now();"
  for m in ${imports[$name]}; do script+="await import('$m');"; done
  script+="console.log(performance.now()-t)"
  times=$(for i in 1 2 3 4 5 6 7; do node --input-type=module -e "$script"; done | sort -n | sed -n 4p)
  printf '| %s | %s | %s | %.0f |\n' "$name" "${sets[$name]}" "$size" "$times"
done
# Ours: the agent loop's modules through tsx (which transpiles them; its own cost is included).
times=$(for i in 1 2 3 4 5 6 7; do (cd .. && node --import tsx --input-type=module -e "const t=performance.now(); await import('./src/agent/run-agent.ts'); await import('./src/model-servers/openai-model-client.ts'); console.log(performance.now()-t)"); done | sort -n | sed -n 4p)
printf '| ours (src/agent via tsx) | the bot'"'"'s openai + zod | (in openai row) | %.0f |\n' "$times"
