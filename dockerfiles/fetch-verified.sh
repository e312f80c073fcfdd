#!/usr/bin/env bash
# Downloads one file and keeps it only if it is what its publisher released (dynamo-combined-efa build helper).
#   fetch-verified sha256 <url> <out> <sha256>
#       the publisher's SHA-256 of the file, pinned as a build ARG (dockerfiles/README.md names each source)
#   fetch-verified gpg <url> <out> <signature-url> <key-url> <key-fingerprint>
#       a detached OpenPGP signature by exactly the pinned key (40 hex): the key is imported into a throw-away
#       GNUPGHOME, must have that fingerprint, and gpg must report VALIDSIG by it (gpg's exit code alone accepts a
#       good signature by any key in the keyring)
# The download lands in a temporary file; <out> appears only after the check passes. Exit 1 naming the file and both
# values on any mismatch, exit 64 on bad usage (an empty pin included: an unpinned download is refused, not skipped).
set -euo pipefail

die() { echo "fetch-verified: $*" >&2; exit 1; }
usage() { echo "usage: fetch-verified sha256 <url> <out> <sha256> | gpg <url> <out> <sig-url> <key-url> <fingerprint>" >&2; exit 64; }

[ "$#" -ge 1 ] || usage
mode="$1"
shift
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
# curl has no deadline of its own: a server that accepts and then stalls would hang the build forever. A transfer
# below 1 KiB/s for FETCH_STALL_SECONDS (default 60), or no connection in 30 s, fails; FETCH_RETRIES (default 3) more
# attempts follow. No total limit: a slow but moving mirror of a large tarball still completes.
stall="${FETCH_STALL_SECONDS:-60}" retries="${FETCH_RETRIES:-3}"
[[ "${stall}" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "fetch-verified: FETCH_STALL_SECONDS must be a whole number of seconds from 1 to 99999 (unset: 60); got '${stall}'" >&2; exit 64; }
[[ "${retries}" =~ ^[0-9]$ ]] || { echo "fetch-verified: FETCH_RETRIES must be a whole number from 0 to 9 (unset: 3); got '${retries}'" >&2; exit 64; }
get() {
  curl -fsSL --retry "${retries}" --connect-timeout 30 --speed-limit 1024 --speed-time "${stall}" -o "$2" "$1" \
    || die "$1: download failed (curl exit $?; 28: no progress for ${stall} s or no connection in 30 s, after ${retries} retries)"
}

case "${mode}" in
  sha256)
    [ "$#" -eq 3 ] || usage
    url="$1" out="$2" want="$3"
    [[ "${want}" =~ ^[0-9a-f]{64}$ ]] || { echo "fetch-verified: ${url}: the pinned sha256 must be 64 lower-case hex digits, got '${want}'" >&2; exit 64; }
    get "${url}" "${tmp}/file"
    got="$(sha256sum "${tmp}/file" | cut -d' ' -f1)"
    [ "${got}" = "${want}" ] || die "${url}: sha256 ${got} is not the pinned ${want}; refusing it"
    ;;
  gpg)
    [ "$#" -eq 5 ] || usage
    url="$1" out="$2" sig_url="$3" key_url="$4" fpr="$(tr a-f A-F <<<"$5")"
    [[ "${fpr}" =~ ^[0-9A-F]{40}$ ]] || { echo "fetch-verified: ${url}: the pinned key fingerprint must be 40 hex digits, got '$5'" >&2; exit 64; }
    get "${url}" "${tmp}/file"
    get "${sig_url}" "${tmp}/file.sig"
    get "${key_url}" "${tmp}/key"
    export GNUPGHOME="${tmp}/gnupg"
    mkdir -m 0700 "${GNUPGHOME}"
    gpg --batch --quiet --import "${tmp}/key" 2>/dev/null || die "${key_url} is not an OpenPGP key; refusing ${url}"
    keys="$(gpg --batch --with-colons --fingerprint | awk -F: '$1 == "pub" { want = 1; next } $1 == "fpr" && want { print $10; want = 0 }')"
    grep -qxF "${fpr}" <<<"${keys}" || die "${key_url} does not hold the pinned key ${fpr} (found: $(echo ${keys:-none})); refusing ${url}"
    status="$(gpg --batch --status-fd 1 --verify "${tmp}/file.sig" "${tmp}/file" 2>/dev/null)" || die "gpg rejected ${sig_url} for ${url}"
    signers="$(awk '$1 == "[GNUPG:]" && $2 == "VALIDSIG" { print $12 }' <<<"${status}")"
    if ! grep -qxF "${fpr}" <<<"${signers}" || grep -q '^\[GNUPG:\] REVKEYSIG ' <<<"${status}"; then
      die "${sig_url}: no valid signature by the pinned key ${fpr} (signers: $(echo ${signers:-none})); refusing ${url}"
    fi
    gpgconf --kill all 2>/dev/null || true
    ;;
  *) usage ;;
esac
mkdir -p "$(dirname "${out}")"
mv "${tmp}/file" "${out}"
echo "fetch-verified: ${url} -> ${out} (${mode} ok)"
