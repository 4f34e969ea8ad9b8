# shellcheck shell=bash
# `need_haproxy`: installs Debian's haproxy and openssl when missing (tests/client_https.rs
# terminates TLS with them; scripts/scale-out.sh balances replicas with haproxy) and sets
# $haproxy to the binary.
need_haproxy() {
    local missing=()
    command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "--- installing ${missing[*]} (Debian packages)"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
}
