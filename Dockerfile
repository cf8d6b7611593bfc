# The bot as a container: `docker compose up -d` (compose.yaml), or
#   docker build -t discord-agent-bot . && docker run --init --stop-timeout 15 --env-file .env -v bot-data:/data discord-agent-bot
# Two stages: the build (TypeScript compiled into dist/, better-sqlite3 built, dev packages pruned)
# and the runtime (Node, the pruned node_modules and dist/ only; no compiler, no tsx, no sources).
# test/container/container-steps.ts runs these same steps without a container engine, and checks them.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# node-gyp would download Node's headers from nodejs.org; the image has them already.
ENV npm_config_nodedir=/usr/local
# better-sqlite3 downloads a prebuilt binary when it can; these build it when it cannot.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Scripts off for the install itself: `prepare` would build dist/ before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY scripts ./scripts
COPY tsconfig.json ./
COPY src ./src
COPY commands ./commands
COPY tools ./tools
COPY db ./db
RUN npm run build && npm prune --omit=dev --no-audit --no-fund
# better-sqlite3 loads build/Release/better_sqlite3.node alone: its compiler's leftovers (SQLite's
# sources, object files, a static library, a test extension) are 27 of its 28 MiB.
RUN cd node_modules/better-sqlite3 && rm -rf deps src build/deps build/Release/obj build/Release/obj.target \
    build/Release/sqlite3.a build/Release/test_extension.node

# The build stage's image: dist/ holds the code cache its Node made for the packages (the ready line
# says "codeCache":"used"), which V8 takes only from the same version of Node, with the same flags.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The database (with its instance lock and health file) lives on a volume, owned by the unprivileged `node` user.
# The default DATABASE_PATH, ./data/bot.sqlite, leads there: an --env-file copied from .env.example
# sets DATABASE_PATH blank, which would override an ENV here (and blank means the default).
RUN mkdir /data && chown node:node /data && ln -s /data /app/data
VOLUME /data
USER node
# The bot's own account of itself: its health file, written every 5 s (src/health/health-file.ts).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "dist/health.js"]
# Exec form: node is the process that gets SIGTERM (5 s grace for runs in flight, then exit 0).
# Run with --init (compose: `init: true`) so that MCP servers' orphaned children are reaped.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "dist/main.js"]
