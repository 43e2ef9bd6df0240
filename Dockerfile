# labbot: the bot (`serve`) and the queue worker (`worker`) from one image.
#   docker build -t labbot .
#   docker run --env-file .env -p 3000:3000 -v labbot-data:/data labbot            # serve
#   docker run --env-file .env -v labbot-worker:/data labbot worker                 # a worker
# docker-compose.yml runs it next to Redis and Chroma.
#
# Node 20.20.2 on Debian 12 (glibc 2.36) is the combination STACK.md verified. Newer Node lines
# are not: several pinned dependencies are held back because their next versions need Node 22.
# The embedded Chroma bindings (used only when CHROMA_URL is unset) need glibc <= 2.36.

# --- build: full install (dev dependencies too) to typecheck exactly the code the image ships ---
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /app
# .npmrc carries legacy-peer-deps=true: without it `npm ci` fails with ERESOLVE.
# --ignore-scripts: nothing here needs an install script (STACK.md), and no compiler is in the image.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY bin ./bin
RUN npx tsc --noEmit
# The CLI as one JavaScript bundle (bin/bundle.js): the app's code is read-only at run time, so it
# is built here; bin/labbot.js finds it by the sources' hash and loads no TypeScript at start-up.
RUN node bin/bundle.js

# --- runtime: production dependencies only ---
FROM node:20.20.2-bookworm-slim AS runtime
# git: git wiki sources are cloned and fetched with the git CLI; openssh-client for wikis reached
# over ssh with a deploy key (sshKeyPath). No curl: the healthcheck uses node.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates apertium apertium-en-es \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# tsx and esbuild are runtime dependencies: bin/labbot.js runs the bundle built below, and the
# TypeScript sources through tsx should the bundle ever not match them.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
# The typechecked sources come from the build stage (which also makes BuildKit run that stage).
COPY --from=build /app/src ./src
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
# The example lab makes the default labbot.config.json work out of the box; mount your own config.
COPY examples ./examples
COPY labbot.config.json manifest.json ./

# Code stays root-owned (read-only to the app); only /data is writable by the node user.
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production \
    LABBOT_DATA_DIR=/data \
    LABBOT_HOST=0.0.0.0 \
    LABBOT_PORT=3000
# In a container 127.0.0.1 is unreachable from outside, hence LABBOT_HOST=0.0.0.0. Without
# LABBOT_ADMIN_TOKEN, serve then refuses the admin dashboard (by design); the rest still runs.
VOLUME ["/data"]
USER node
EXPOSE 3000

# /readyz: 200 when Chroma and Redis answer, 503 otherwise. No curl in slim images: node's fetch.
# start-period covers the first start, which indexes the configured sources before listening.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.LABBOT_PORT||3000)+'/readyz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["node", "bin/labbot.js"]
CMD ["serve"]
