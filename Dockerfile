# Pagewright: one image for every role (serve, web, worker). Debian, Chromium from Debian, an
# unprivileged user, a health check on /healthz.
#
#   docker build -t pagewright .
#   docker run -p 3000:3000 -v pagewright-data:/data -e ADMIN_PASSWORD=change-me pagewright
#
# The scale-out setup (PostgreSQL, S3-compatible files, one web, two workers): docker-compose.yml.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dependencies whose install scripts build native code (better-sqlite3) need a compiler when no
# prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/* \
 && npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-core fonts-noto-color-emoji ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /home/pagewright pagewright \
 && mkdir -p /data \
 && chown pagewright /data
ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER pagewright
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["tini", "--", "node", "dist/main.js"]
CMD ["serve"]
