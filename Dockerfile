# syntax=docker/dockerfile:1
# One image per app of the workspace:
#
#   docker build --build-arg APP=edge -t messaging-gateway/edge .
#
# APP is one of: edge, tenant-directory, messaging, flows, signup, dispatcher, provider-sim.
# Stages: `prod-deps` installs production node_modules only (npm ci --omit=dev); `build` bundles the app with
# esbuild (scripts/build-app.mjs: workspace code bundled, node_modules external; the edge's image also gets the
# built dashboard beside its bundle, dist/dashboard); `runtime` is node:20 slim
# with the bundle, those node_modules and the health-check scripts, running as the unprivileged `node` user
# (uid 1000, given numerically so Kubernetes' runAsNonRoot can verify it).
# Health checks are declared by the orchestrator (docker-compose.yml, deploy/): the ports are configuration.

ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no dependency runs code at install time (none needs to: pg's native binding is not used).
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json ./
COPY scripts/build-app.mjs scripts/
COPY libs libs
COPY apps apps
ARG APP
RUN test -n "${APP}" || { echo "build with --build-arg APP=<app>" >&2; exit 1; } \
 && node scripts/build-app.mjs "${APP}" \
 && if [ "${APP}" = edge ]; then npx vite build -c apps/dashboard/vite.config.mts --outDir /src/dist/apps/edge/dashboard; fi

FROM ${NODE_IMAGE} AS runtime
ARG APP
LABEL org.opencontainers.image.title="messaging-gateway-${APP}" \
      org.opencontainers.image.description="Multi-tenant business messaging gateway: ${APP}"
# V8 heap, the default of a process the deployment does not tune: a small young generation (2 MB semi-spaces) and a
# 160 MB old-space cap. Each service's own setting (32 MB semi-spaces for the edge, 16 for messaging, the tenant directory
# and the dispatcher: less CPU in GC for ~30 MB more) is NODE_OPTIONS of libs/config/src/services.json, which
# docker-compose.yml and deploy/ set per service with its V8_HEAP_GROWING_PERCENT (README, "V8 settings per service")
ENV NODE_ENV=production \
    APP=${APP} \
    DATA_DIR=/tmp/gateway-data \
    NODE_OPTIONS="--max-semi-space-size=2 --max-old-space-size=160" \
    NODE_FLAGS=""
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root scripts/grpc-health-check.mjs scripts/http-health-check.mjs ./scripts/
COPY --from=build --chown=root:root /src/dist/apps/${APP}/ ./dist/
# files stay root-owned and read-only for the process; it writes only under /tmp (a tmpfs/emptyDir in deployments)
USER 1000:1000
STOPSIGNAL SIGTERM
# NODE_FLAGS: node flags NODE_OPTIONS refuses (the dispatcher's --single-threaded-gc: nodeFlags of the catalogue, set
# per service like NODE_OPTIONS); `exec` leaves node itself as the container's process, so it gets the stop signal
CMD ["/bin/sh", "-c", "exec node $NODE_FLAGS --enable-source-maps dist/main.js"]
