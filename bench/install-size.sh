#!/usr/bin/env bash
# `npm run bench:install-size`: the bot's production install (`npm ci --omit=dev` of its
# package.json and package-lock.json, in a temporary copy, plus the compiled dist/ that npm start
# runs) against the same packages installed instead of bundled (as before the compiled start), and
# against the production install of each alternative agent library alone. Needs the npm registry (and nothing else);
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
modules=$(mib "$work/bot")
(cd "$root" && node scripts/build.mjs > /dev/null)
dist=$(du -sk "$root/dist" | awk '{printf "%.1f", $1/1024}')
bot=$(awk "BEGIN {printf \"%.1f\", $modules + $dist}")

# The same packages installed rather than bundled into dist/ (npm start through tsx, as before).
bundled="@modelcontextprotocol/sdk ajv discord.js gpt-tokenizer html-to-text ipaddr.js openai zod tsx"
mkdir "$work/unbundled"
cp "$root/package.json" "$root/package-lock.json" "$work/unbundled/"
node -e '
  const fs = require("fs"); const file = process.argv[1]; const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const name of process.argv.slice(2)) { pkg.dependencies[name] = pkg.devDependencies[name]; delete pkg.devDependencies[name]; }
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
' "$work/unbundled/package.json" $bundled
(cd "$work/unbundled" && npm_quiet install --omit=dev)
add_sqlite_binary "$work/unbundled"
unbundled=$(mib "$work/unbundled")

echo "npm $(npm --version), Node $(node --version); sizes are du -sk of node_modules (and of dist/ for the bot)."
echo
echo "| install | packages | production install (MiB) |"
echo "|---|---|--:|"
installed=$(cd "$work/bot" && npm ls --omit=dev --all --parseable 2> /dev/null | tail -n +2 | sort -u | wc -l)
printf '| the bot: `npm ci --omit=dev` + dist/ | %s packages installed (%s MiB) + dist/ (%s MiB, source maps included) | %s |\n' "$installed" "$modules" "$dist" "$bot"
printf '| the same packages installed, not bundled (npm start through tsx) | %s | %s |\n' "$bundled" "$unbundled"
# BENCH_SMOKE=1 (npm run check:benches): one alternative, to see the script through.
alternatives="openai ai-sdk openai-agents langchain"
[ "${BENCH_SMOKE:-}" = 1 ] && alternatives=openai
for name in $alternatives; do
  # Alone, in an empty folder: what it weighs installed (bundled, only what runs would be kept).
  mkdir "$work/$name"
  (cd "$work/$name" && npm init -y > /dev/null 2>&1 && npm_quiet install --omit=dev ${sets[$name]})
  printf '| %s | %s | %s |\n' "${names[$name]}" "${sets[$name]}" "$(mib "$work/$name")"
  rm -rf "$work/$name"
done
echo
echo "The bot's largest production packages (MiB):"
echo
# A production install may have no scoped package: an unmatched @*/* is no name (nullglob).
(cd "$work/bot/node_modules" && shopt -s nullglob && du -sk [!@.]* @*/*) | sort -rn | head -8 | awk '{ printf "- %s %.1f\n", $2, $1/1024 }'
