#!/usr/bin/env bash
# `npm run bench:install-size`: the bot's production install (`npm ci --omit=dev` of its
# package.json and package-lock.json, in a temporary copy) against the production install of each
# alternative agent library, alone and added to the bot. Needs the npm registry (and nothing else);
# npm's cache is kept in /tmp/bench-npm-cache (BENCH_NPM_CACHE to change it), so a second run
# downloads nothing. The alternatives' versions are those of bench/package.json.
#
# Install scripts are not run: better-sqlite3's would fetch a prebuilt binary from outside the npm
# registry. The binary built here (node_modules/better-sqlite3/build/Release/better_sqlite3.node)
# is copied in its place, so the sizes are those of a working install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${BENCH_NPM_CACHE:-/tmp/bench-npm-cache}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version() { node -p "require('$root/bench/package.json').dependencies['$1']"; }
npm_quiet() { npm --cache "$cache" --no-audit --no-fund --loglevel=error --ignore-scripts "$@" > "$work/npm.log" 2>&1 || { cat "$work/npm.log"; exit 1; }; }
add_sqlite_binary() {
  local target="$1/node_modules/better-sqlite3/build/Release"
  [ -d "$1/node_modules/better-sqlite3" ] || return 0
  mkdir -p "$target" && cp "$root/node_modules/better-sqlite3/build/Release/better_sqlite3.node" "$target/"
}
mib() { du -sk "$1/node_modules" | awk '{printf "%.1f", $1/1024}'; }

declare -A sets=(
  [openai]="openai@$(version openai) zod@$(version zod)"
  [ai-sdk]="ai@$(version ai) @ai-sdk/openai@$(version @ai-sdk/openai) zod@$(version zod)"
  [openai-agents]="@openai/agents@$(version @openai/agents) zod@$(version zod)"
  [langchain]="langchain@$(version langchain) @langchain/core@$(version @langchain/core) @langchain/openai@$(version @langchain/openai) zod@$(version zod)"
)
declare -A names=(
  [openai]="openai + zod (all our agent loop needs; the bot has both)"
  [ai-sdk]="Vercel AI SDK"
  [openai-agents]="OpenAI Agents SDK"
  [langchain]="LangChain createAgent"
)

# The bot, as it is installed for production.
mkdir "$work/bot"
cp "$root/package.json" "$root/package-lock.json" "$work/bot/"
(cd "$work/bot" && npm_quiet ci --omit=dev)
add_sqlite_binary "$work/bot"
bot=$(mib "$work/bot")

echo "npm $(npm --version), Node $(node --version); sizes are du -sk of node_modules."
echo
echo "| install | packages | production install (MiB) | added to the bot's (MiB) |"
echo "|---|---|--:|--:|"
installed=$(cd "$work/bot" && npm ls --omit=dev --all --parseable 2> /dev/null | tail -n +2 | sort -u | wc -l)
printf '| the bot: `npm ci --omit=dev` | package-lock.json (%s packages installed) | %s | |\n' "$installed" "$bot"
for name in openai ai-sdk openai-agents langchain; do
  # Alone, in an empty folder.
  mkdir "$work/$name"
  (cd "$work/$name" && npm init -y > /dev/null 2>&1 && npm_quiet install --omit=dev ${sets[$name]})
  alone=$(mib "$work/$name")
  # Added to a copy of the bot's install.
  cp -r "$work/bot" "$work/bot-$name"
  (cd "$work/bot-$name" && npm_quiet install --omit=dev ${sets[$name]})
  add_sqlite_binary "$work/bot-$name"
  with=$(mib "$work/bot-$name")
  printf '| %s | %s | %s | +%s |\n' "${names[$name]}" "${sets[$name]}" "$alone" "$(awk "BEGIN {printf \"%.1f\", $with - $bot}")"
  rm -rf "$work/$name" "$work/bot-$name"
done
echo
echo "The bot's largest production packages (MiB):"
echo
(cd "$work/bot/node_modules" && du -sk [!@.]* @*/*) | sort -rn | head -8 | awk '{ printf "- %s %.1f\n", $2, $1/1024 }'
