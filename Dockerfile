# Mailroom container image: builds the TypeScript once, ships only what runs.
#   docker build -t mailroom .
#   docker run -p 9000:9000 -v mailroom-data:/data -e MAILROOM_ADMIN_PASSWORD=... mailroom
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    MAILROOM_DATA_DIR=/data \
    PORT=9000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 9000
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||9000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM triggers a graceful stop (in-flight sends settle, progress is written).
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
