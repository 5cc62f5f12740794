# cmrender: the render service and the `cmrender` CLI, with Debian's Chromium and ffmpeg.
# Two stages: `build` installs every dependency and compiles (viewer bundle → dist/viewer, service and CLI →
# dist/app); the final stage has production dependencies only and runs plain `node`. Node 24 is the current LTS.
# Expected size: about 1 GB unpacked (~350 MB compressed), nearly all of it Chromium (~360 MB installed plus its
# graphics and font libraries) and ffmpeg's codec libraries; Node itself ~200 MB; node_modules ~100 MB (three.js is
# 40 MB of it); dist/ 4 MB. Development tools (TypeScript, esbuild, tsx, test libraries: ~55 MB) stay in `build`.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY viewer ./viewer
COPY editor ./editor
COPY examples ./examples
RUN npm run build

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium ffmpeg libegl-mesa0 libgl1-mesa-dri ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# bin/cmrender (bin/cmrender.js by a name PATH finds) runs the compiled dist/app/cli.js: `docker run -i IMAGE cmrender check -`
COPY bin ./bin

RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production \
    PATH=/app/bin:$PATH \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium \
    LOG_LEVEL=info
VOLUME ["/data"]
EXPOSE 3000
USER node

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

# tini reaps Chromium's helper processes and forwards SIGTERM, which closes the service cleanly.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/app/server.js"]
