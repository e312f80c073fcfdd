#!/usr/bin/env python3
"""Downloads one Hugging Face model into a node-local cache, once per node (dynamo-efa `local-nvme` model cache).

Runs as the first init container of every worker pod. All pods of a node share the cache directory (a hostPath
on the node's RAID0 NVMe array); a kernel lock (flock) on a file in it makes exactly one of them download while
the others wait, and the lock dies with its holder, so a killed pod never leaves a stale lock. The download goes
into a private staging directory; only when every file is complete is the completion marker written and the
directory renamed into place (one atomic rename on one file system). Workers read the final directory only, so
an interrupted download is never used: the next pod to take the lock deletes it and starts over.

Environment:
  MODEL_ID                 Hugging Face model id, "org/name" (required)
  MODEL_REVISION           branch, tag or commit (default "main")
  CACHE_ROOT               the node cache directory (required)
  HF_ENDPOINT              default https://huggingface.co
  HF_TOKEN                 token (optional; gated models need one with access)
  DOWNLOAD_BUDGET_SECONDS  give up after this long, waiting included (default 1800)
  RETRY_MAX_ATTEMPTS       attempts per request on HTTP 429/5xx or a broken connection (default 8)
  RETRY_BASE_SECONDS       first backoff, doubled per attempt with jitter, capped at 60 s (default 2)
Exit codes: 0 complete; 2 no access / not found (retrying will not help); 1 any other failure.
Python standard library only.
"""
import fcntl, http.client, json, os, random, re, shutil, socket, sys, time, urllib.error, urllib.parse, urllib.request

MARKER = ".dynamo-efa-complete"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# Never needed by vLLM/TRT-LLM when safetensors are present: Meta's consolidated checkpoints, other formats.
SKIP_WITH_SAFETENSORS = (".bin", ".pt", ".pth", ".h5", ".msgpack", ".onnx", ".gguf", ".ckpt")


class Fatal(Exception):
    """A failure retrying cannot fix (no access, not found)."""


def log(msg):
    print(f"dynamo-efa prefetch: {msg}", file=sys.stderr, flush=True)


def model_dir(root, model, revision):
    """The final directory of a model revision (what workers mount as --model)."""
    return os.path.join(root, "models", model.replace("/", "--"), revision)


class NoAuthAcrossHosts(urllib.request.HTTPRedirectHandler):
    """Follows redirects (HF sends file downloads to its CDN) but never sends the token to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).netloc != urllib.parse.urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


class Client:
    def __init__(self, cfg):
        self.cfg = cfg
        self.opener = urllib.request.build_opener(NoAuthAcrossHosts())

    def access_error(self, status):
        m, tok = self.cfg["model"], self.cfg["token"]
        if status == 404:
            return Fatal(f"model {m} (revision {self.cfg['revision']}) not found at {self.cfg['endpoint']}; check inference.model, or the model is gated and hidden from this token")
        if not tok:
            return Fatal(f"model {m} needs a Hugging Face token (HTTP {status}) and HF_TOKEN is empty: set dynamo-efa:hfToken or inference.hfTokenSecretName")
        return Fatal(f"the Hugging Face token has no access to model {m} (HTTP {status}): accept the model's license at {self.cfg['endpoint']}/{m} with the token's account, or use a token that has access")

    def open(self, url, what):
        """Opens `url`, retrying 429/5xx and broken connections with exponential backoff (Retry-After honoured)."""
        c = self.cfg
        for attempt in range(1, c["attempts"] + 1):
            req = urllib.request.Request(url, headers={"User-Agent": "dynamo-efa-prefetch/1"})
            if c["token"]:
                req.add_header("Authorization", f"Bearer {c['token']}")
            wait = min(60.0, c["base"] * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            try:
                return self.opener.open(req, timeout=60)
            except urllib.error.HTTPError as e:
                if e.code in (401, 403, 404):
                    raise self.access_error(e.code)
                if e.code != 429 and e.code < 500:
                    raise Fatal(f"{what}: HTTP {e.code} from {url}")
                after = e.headers.get("Retry-After", "")
                if after.isdigit():
                    wait = min(60.0, float(after))
                reason = f"HTTP {e.code}"
            except (urllib.error.URLError, socket.timeout, ConnectionError, http.client.HTTPException) as e:
                reason = str(getattr(e, "reason", e))
            if attempt == c["attempts"] or time.monotonic() + wait > c["deadline"]:
                raise RuntimeError(f"{what}: {reason} after {attempt} attempts")
            log(f"{what}: {reason}; retry {attempt}/{c['attempts'] - 1} in {wait:.1f}s")
            time.sleep(wait)

    def listing(self):
        c = self.cfg
        url = f"{c['endpoint']}/api/models/{c['model']}/revision/{urllib.parse.quote(c['revision'])}?blobs=true"
        with self.open(url, f"listing {c['model']}") as r:
            info = json.load(r)
        files = [(s["rfilename"], s.get("size")) for s in info.get("siblings", [])]
        if any(f.endswith(".safetensors") for f, _ in files):
            files = [(f, n) for f, n in files if not f.startswith("original/") and not f.endswith(SKIP_WITH_SAFETENSORS)]
        return info.get("sha") or c["revision"], files

    def fetch(self, sha, name, size, dest):
        """Downloads one file to dest; a short read (connection cut) is retried from the start."""
        c = self.cfg
        url = f"{c['endpoint']}/{c['model']}/resolve/{sha}/{urllib.parse.quote(name)}"
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        for attempt in range(1, c["attempts"] + 1):
            got, want, whole = 0, size, False
            try:
                with self.open(url, f"downloading {name}") as r, open(dest + ".part", "wb") as out:
                    want = int(r.headers.get("Content-Length") or size or -1)
                    while chunk := r.read(1 << 20):
                        out.write(chunk)
                        got += len(chunk)
                    out.flush()
                    os.fsync(out.fileno())
                whole = True
            except (ConnectionError, socket.timeout, urllib.error.URLError, http.client.HTTPException, OSError) as e:
                log(f"downloading {name}: {type(e).__name__}: {e}")
            if whole and want in (-1, None, got) and size in (None, got):
                os.replace(dest + ".part", dest)
                return got
            if attempt == c["attempts"] or time.monotonic() > c["deadline"]:
                raise RuntimeError(f"downloading {name}: got {got} of {want} bytes after {attempt} attempts")
            log(f"downloading {name}: got {got} of {want} bytes; retry {attempt}/{c['attempts'] - 1}")
            time.sleep(min(60.0, c["base"] * 2 ** (attempt - 1)))


def lock(path, deadline, model):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    waited = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"waited the whole download budget for another pod's download of {model}")
            if not waited:
                log(f"another pod on this node is downloading {model}; waiting for it")
                waited = True
            time.sleep(0.2)


def download(cfg, final):
    root, model = cfg["root"], cfg["model"]
    key = f"{model.replace('/', '--')}--{cfg['revision']}"
    staging_root = os.path.join(root, ".staging")
    for d in (staging_root, os.path.join(root, ".locks"), os.path.dirname(final)):
        os.makedirs(d, exist_ok=True)
    fd = lock(os.path.join(root, ".locks", key + ".lock"), cfg["deadline"], model)
    try:
        if os.path.exists(os.path.join(final, MARKER)):
            log(f"{model} was completed by another pod on this node")
            return
        for stale in os.listdir(staging_root):  # interrupted earlier downloads: never used, removed under the lock
            if stale.startswith(key + "."):
                log(f"removing an interrupted download: {stale}")
                shutil.rmtree(os.path.join(staging_root, stale), ignore_errors=True)
        if os.path.exists(final):  # a final directory without a marker is not ours to trust
            shutil.rmtree(final)
        staging = os.path.join(staging_root, f"{key}.{socket.gethostname()}.{os.getpid()}")
        os.makedirs(staging)
        client = Client(cfg)
        sha, files = client.listing()
        total, start = 0, time.monotonic()
        for name, size in files:
            if os.path.isabs(name) or ".." in name.split("/"):
                raise Fatal(f"refusing file name {name!r} from the listing of {model}")
            total += client.fetch(sha, name, size, os.path.join(staging, name))
        marker = {"model": model, "revision": cfg["revision"], "sha": sha, "files": len(files), "bytes": total,
                  "seconds": round(time.monotonic() - start, 1)}
        with open(os.path.join(staging, MARKER), "w") as f:
            json.dump(marker, f)
            f.flush()
            os.fsync(f.fileno())
        os.rename(staging, final)
        dfd = os.open(os.path.dirname(final), os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
        log(f"{model}@{sha}: {len(files)} files, {total} bytes in {marker['seconds']}s -> {final}")
    finally:
        os.close(fd)


def config(env):
    model, root = env.get("MODEL_ID", ""), env.get("CACHE_ROOT", "")
    revision = env.get("MODEL_REVISION") or "main"
    if not NAME.match(model):
        raise Fatal(f"MODEL_ID must be a Hugging Face model id \"org/name\"; got {model!r}")
    if not REVISION.match(revision):
        raise Fatal(f"MODEL_REVISION must be a branch, tag or commit without '/'; got {revision!r}")
    if not root:
        raise Fatal("CACHE_ROOT is not set")
    return {
        "model": model, "revision": revision, "root": root,
        "endpoint": (env.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/"),
        "token": env.get("HF_TOKEN") or env.get("HUGGING_FACE_HUB_TOKEN") or "",
        "deadline": time.monotonic() + float(env.get("DOWNLOAD_BUDGET_SECONDS") or 1800),
        "attempts": int(env.get("RETRY_MAX_ATTEMPTS") or 8),
        "base": float(env.get("RETRY_BASE_SECONDS") or 2),
    }


def main():
    try:
        cfg = config(os.environ)
        final = model_dir(cfg["root"], cfg["model"], cfg["revision"])
        if os.path.exists(os.path.join(final, MARKER)):
            log(f"{cfg['model']} is already complete in {final}")
            return 0
        download(cfg, final)
        return 0
    except Fatal as e:
        log(f"FAILED: {e}")
        return 2
    except Exception as e:  # noqa: BLE001 -- one clear line, not a traceback, for any other failure
        log(f"FAILED: {type(e).__name__}: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
