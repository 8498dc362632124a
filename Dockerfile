# The reference Payment Service as a container, for teams in any language (docs/reference.md, "Without
# JavaScript"). It runs the single executable that scripts/build-binary.mjs makes (Bun's runtime and the reference
# in one file, no Node inside), so build that first, on linux-x64:
#
#   npm ci && npm run build && npm run runtimes && npm run build:binary
#   docker build -t psp-reference .
#   docker run --rm -p 4010:4010 -e PSP_REFERENCE_API_KEY=sk_test_... psp-reference
#
# The release workflow (.github/workflows/release.yml) builds it this way and smoke-tests it on every push to main.
FROM debian:bookworm-slim

# The compiled executable needs glibc only, which the slim image has; nothing is installed. The one for the image's
# platform: build/psp-reference-linux-x64 on amd64, build/psp-reference-linux-arm64 on arm64 (npm run build:binary
# on a machine of that platform). A platform without its executable stops the build saying so, rather than copying
# one that cannot run there.
ARG TARGETARCH=amd64
COPY build/ /tmp/build/
RUN case "$TARGETARCH" in amd64) arch=x64 ;; arm64) arch=arm64 ;; *) arch="$TARGETARCH" ;; esac \
  && if [ ! -f "/tmp/build/psp-reference-linux-$arch" ]; then \
       echo "psp-reference: no build/psp-reference-linux-$arch for $TARGETARCH: run npm run build:binary on $TARGETARCH" >&2; exit 1; \
     fi \
  && install -m 0755 "/tmp/build/psp-reference-linux-$arch" /usr/local/bin/psp-reference \
  && rm -rf /tmp/build

# Not root: the reference needs no privilege (4010 is not a privileged port) and writes nothing unless --state
# names a file on a volume this user may write.
USER 65532:65532

EXPOSE 4010

# /openapi.json needs no credential; bash's /dev/tcp asks for it without curl in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/4010 && printf 'GET /openapi.json HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]

# Every interface of the container, on the exposed port. Receivers in a compose network have private addresses,
# which a reference beyond loopback refuses by default: the image allows them (replace CMD to drop it). Fixed
# credentials come from PSP_REFERENCE_API_KEY, PSP_REFERENCE_ADMIN_TOKEN and PSP_REFERENCE_WEBHOOK_SECRET.
ENTRYPOINT ["/usr/local/bin/psp-reference", "--host", "0.0.0.0", "--port", "4010"]
CMD ["--allow-private-webhooks"]
