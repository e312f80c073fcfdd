#!/usr/bin/env python3
"""Downloads one Hugging Face model into a node-local cache, once per node (dynamo-efa `local-nvme` model cache).

Runs in the prefetch DaemonSet's pod as soon as a GPU node joins, and again as an init container of every worker
pod (after `cache-owner`), which then finds the download complete. All pods of a node share the cache directory (a hostPath
on the node's RAID0 NVMe array); a kernel lock (flock) on a file in it makes exactly one of them download while
the others wait, and the lock dies with its holder, so a killed pod never leaves a stale lock. The download goes
into a private staging directory; only when every file is complete and verified is the completion marker written
and the directory renamed into place (one atomic rename on one file system). Workers read the final directory
only, so an interrupted download is never used: the next pod to take the lock deletes it and starts over.

Verified: every file's size and hash against the revision's listing (asked with blobs=true): Git LFS files by the sha256
the listing carries (`lfs.sha256`), the others by their git blob id (`blobId`: sha1 of "blob <size>\\0" + content).
A listing with no files, or a file without a size or hash, is a failure, never an empty "complete" model. The
marker records every file's size; a start that finds a file of another size (a cache edited or damaged on the
node) downloads again. Recovery by hand (README "Model cache recovery"): delete the model's directory on the node.

The budget is a deadline: a SIGALRM timer ends the whole run (lock wait, connects, a hung or slow-drip server)
when DOWNLOAD_BUDGET_SECONDS have passed since the start.

Environment:
  MODEL_ID                 Hugging Face model id, "org/name" (required; the rule is MODEL_ID_RULE below)
  MODEL_REVISION           branch, tag or 40-hex commit (default "main"); a commit must be the listing's sha
  CACHE_ROOT               the node cache directory (required)
  HF_ENDPOINT              default https://huggingface.co
  HF_TOKEN                 token (optional; gated models need one with access)
  DOWNLOAD_BUDGET_SECONDS  give up after this long, waiting included (default 1800)
  RETRY_MAX_ATTEMPTS       attempts per request on HTTP 429/5xx or a broken connection (default 8)
  RETRY_BASE_SECONDS       first backoff, doubled per attempt with jitter, capped at 60 s (default 2)
  METADATA_ONLY            "1": only the config, tokenizer and template files, no weights (the Frontend's copy of
                           what the workers' model card names; never pointed at a node cache)
Exit codes: 0 complete; 2 no access / not found / bad input (retrying will not help); 1 any other failure.
Python standard library only.
"""
import fcntl, hashlib, http.client, json, os, random, re, shutil, signal, socket, sys, time, urllib.error, urllib.parse, urllib.request

MARKER = ".dynamo-efa-complete"
# The same expressions as components/inference/validate.ts (the render's validation); tests/unit/model-id.spec.ts
# runs both over the same cases. Each part: letters, digits, "_", "-", "." (Hugging Face's own rule), starting and
# ending with a letter, digit or "_", at most 96 characters; no "--" (the cache's directory separator) or "..".
MODEL_ID_RULE = re.compile(r"^(?!.*--)(?!.*\.\.)(?=[^/]{1,96}/[^/]{1,96}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?/[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$")
REVISION_RULE = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
# Never needed by vLLM/TRT-LLM when safetensors are present: Meta's consolidated checkpoints, other formats.
SKIP_WITH_SAFETENSORS = (".bin", ".pt", ".pth", ".h5", ".msgpack", ".onnx", ".gguf", ".ckpt")


class Fatal(Exception):
    """A failure retrying cannot fix (no access, not found, bad input)."""


class Corrupt(Exception):
    """A file whose bytes do not match the listing (retried: a transfer can be cut or garbled)."""


class BudgetExceeded(BaseException):
    """The download budget ran out. A BaseException, so no `except Exception` on the way can swallow it."""


def is_weights(name):
    """A weight file or a subdirectory's file: never one the model card names (those are top-level config files)."""
    return "/" in name or name.endswith(".safetensors") or name.endswith(SKIP_WITH_SAFETENSORS)


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


def remaining(c):
    """Seconds left of the budget (the alarm ends the run at 0; this bounds each socket wait below it)."""
    return max(0.5, c["deadline"] - time.monotonic())


class Client:
    def __init__(self, cfg):
        self.cfg = cfg
        self.opener = urllib.request.build_opener(NoAuthAcrossHosts())

    def access_error(self, status):
        m, tok = self.cfg["model"], self.cfg["token"]
        if status == 404:
            return Fatal(f"model {m} (revision {self.cfg['revision']}) not found at {self.cfg['endpoint']}; check inference.model and inference.modelRevision, or the model is gated and hidden from this token")
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
                return self.opener.open(req, timeout=min(60.0, remaining(c)))
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
        """The revision's commit and its files as (name, size, algorithm, digest), each verified after download."""
        c = self.cfg
        url = f"{c['endpoint']}/api/models/{c['model']}/revision/{urllib.parse.quote(c['revision'])}?blobs=true"
        with self.open(url, f"listing {c['model']}") as r:
            info = json.load(r)
        files = [expected(s, c["model"]) for s in info.get("siblings") or []]
        if any(f[0].endswith(".safetensors") for f in files):
            files = [f for f in files if not f[0].startswith("original/") and not f[0].endswith(SKIP_WITH_SAFETENSORS)]
        if c["metadata_only"]:
            files = [f for f in files if not is_weights(f[0])]
        if not files:
            raise RuntimeError(f"the listing of {c['model']} at revision {c['revision']} names no files; refusing to mark an empty model complete")
        sha = info.get("sha") or ""
        if COMMIT.match(c["revision"]) and sha != c["revision"]:
            raise RuntimeError(f"the listing of {c['model']} is for commit {sha!r}, not the pinned {c['revision']}")
        if not COMMIT.match(sha):
            raise RuntimeError(f"the listing of {c['model']} at revision {c['revision']} carries no commit sha ({sha!r})")
        return sha, files

    def fetch(self, sha, f, dest):
        """Downloads one file to dest and checks its size and hash; a short read or a wrong hash is retried from the start."""
        c = self.cfg
        name, size, algo, digest = f
        url = f"{c['endpoint']}/{c['model']}/resolve/{sha}/{urllib.parse.quote(name)}"
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        for attempt in range(1, c["attempts"] + 1):
            got, why = 0, ""
            try:
                h = hashlib.sha256() if algo == "sha256" else hashlib.sha1(b"blob %d\0" % size)
                with self.open(url, f"downloading {name}") as r, open(dest + ".part", "wb") as out:
                    while chunk := r.read(1 << 20):
                        out.write(chunk)
                        h.update(chunk)
                        got += len(chunk)
                    out.flush()
                    os.fsync(out.fileno())
                if got != size:
                    why = f"got {got} of {size} bytes"
                elif h.hexdigest() != digest:
                    why = f"{algo} {h.hexdigest()} is not the listing's {digest}"
                else:
                    os.replace(dest + ".part", dest)
                    return got
            except (ConnectionError, socket.timeout, urllib.error.URLError, http.client.HTTPException, OSError) as e:
                why = f"got {got} of {size} bytes ({type(e).__name__}: {e})"
            if attempt == c["attempts"] or time.monotonic() > c["deadline"]:
                raise Corrupt(f"downloading {name}: {why} after {attempt} attempts")
            log(f"downloading {name}: {why}; retry {attempt}/{c['attempts'] - 1}")
            time.sleep(min(60.0, c["base"] * 2 ** (attempt - 1)))


def expected(s, model):
    """(name, size, algorithm, digest) of one listing entry; a name, size or hash missing is a failure."""
    name, size, lfs = s["rfilename"], s.get("size"), s.get("lfs") or {}
    if not isinstance(name, str) or os.path.isabs(name) or ".." in name.split("/") or not name:
        raise Fatal(f"refusing file name {name!r} from the listing of {model}")
    if isinstance(lfs.get("size"), int) and lfs.get("sha256"):
        return name, lfs["size"], "sha256", lfs["sha256"]
    if isinstance(size, int) and s.get("blobId"):
        return name, size, "git-sha1", s["blobId"]
    raise RuntimeError(f"the listing of {model} gives {name} no size and hash (lfs.sha256 or blobId): cannot verify it")


def lock(path, model):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    waited = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if not waited:
                log(f"another pod on this node is downloading {model}; waiting for it")
                waited = True
            time.sleep(0.2)


def complete(final):
    """True when the marker exists and every file it lists has its recorded size (a cheap check at every start)."""
    try:
        with open(os.path.join(final, MARKER)) as f:
            sizes = json.load(f).get("sizes") or {}
    except (OSError, ValueError):
        return False
    for name, size in sizes.items():
        try:
            if os.path.getsize(os.path.join(final, name)) == size:
                continue
        except OSError:
            pass
        log(f"{final}: {name} does not have the {size} bytes its completion marker records; downloading again")
        return False
    return bool(sizes)


def download(cfg, final):
    root, model = cfg["root"], cfg["model"]
    key = f"{model.replace('/', '--')}--{cfg['revision']}"
    staging_root = os.path.join(root, ".staging")
    for d in (staging_root, os.path.join(root, ".locks"), os.path.dirname(final)):
        os.makedirs(d, exist_ok=True)
    fd = lock(os.path.join(root, ".locks", key + ".lock"), model)
    try:
        if complete(final):
            log(f"{model} was completed by another pod on this node")
            return
        for stale in os.listdir(staging_root):  # interrupted earlier downloads: never used, removed under the lock
            if stale.startswith(key + "."):
                log(f"removing an interrupted download: {stale}")
                shutil.rmtree(os.path.join(staging_root, stale), ignore_errors=True)
        if os.path.exists(final):  # a final directory without a valid marker is not ours to trust
            shutil.rmtree(final)
        staging = os.path.join(staging_root, f"{key}.{socket.gethostname()}.{os.getpid()}")
        os.makedirs(staging)
        client = Client(cfg)
        sha, files = client.listing()
        total, start = 0, time.monotonic()
        for f in files:
            total += client.fetch(sha, f, os.path.join(staging, f[0]))
        marker = {"model": model, "revision": cfg["revision"], "sha": sha, "files": len(files), "bytes": total,
                  "seconds": round(time.monotonic() - start, 1), "sizes": {f[0]: f[1] for f in files}}
        with open(os.path.join(staging, MARKER), "w") as out:
            json.dump(marker, out)
            out.flush()
            os.fsync(out.fileno())
        os.rename(staging, final)
        dfd = os.open(os.path.dirname(final), os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)
        log(f"{model}@{sha}: {len(files)} files, {total} bytes verified in {marker['seconds']}s -> {final}")
    finally:
        os.close(fd)


def config(env):
    model, root = env.get("MODEL_ID", ""), env.get("CACHE_ROOT", "")
    revision = env.get("MODEL_REVISION") or "main"
    if not MODEL_ID_RULE.fullmatch(model):
        raise Fatal(f"MODEL_ID must be a Hugging Face model id \"org/name\" (letters, digits, '_', '-', '.'; no '--' or '..'); got {model!r}")
    if not REVISION_RULE.fullmatch(revision):
        raise Fatal(f"MODEL_REVISION must be a branch, tag or 40-hex commit without '/'; got {revision!r}")
    if not root:
        raise Fatal("CACHE_ROOT is not set")
    budget = number(env, "DOWNLOAD_BUDGET_SECONDS", 1800, 1, MAX_BUDGET_SECONDS)
    endpoint = (env.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise Fatal(f"HF_ENDPOINT must be an http(s) URL such as \"https://huggingface.co\"; got {endpoint!r}")
    return {
        "model": model, "revision": revision, "root": root, "budget": budget, "endpoint": endpoint,
        "token": env.get("HF_TOKEN") or env.get("HUGGING_FACE_HUB_TOKEN") or "",
        "deadline": time.monotonic() + budget,
        "attempts": int(number(env, "RETRY_MAX_ATTEMPTS", 8, 1, 100, integer=True)),
        "base": number(env, "RETRY_BASE_SECONDS", 2, 0, 60),
        "metadata_only": env.get("METADATA_ONLY") == "1",
    }


# The alarm is the only deadline on the lock wait: 0 would disarm it (setitimer(0) cancels) and hang the node's
# pods forever, and past a year setitimer overflows. The render's budgets stay far below (tests/unit/prefetch.spec.ts).
MAX_BUDGET_SECONDS = 365 * 86400


def number(env, key, default, lo, hi, integer=False):
    """env[key] as a number in [lo, hi] (`default` when unset or empty), or a Fatal naming the key, value and range."""
    raw = env.get(key) or ""
    if not raw:
        return default
    try:
        v = int(raw) if integer else float(raw)
    except ValueError:
        v = None
    if v is None or v != v or not lo <= v <= hi:
        kind = "a whole number" if integer else "a number of seconds"
        raise Fatal(f"{key} must be {kind} from {lo:.10g} to {hi:.10g} (unset: {default:.10g}); got {raw[:40]!r}")
    return v


def out_of_budget(signum, frame):
    raise BudgetExceeded()


def main():
    cfg = None
    try:
        cfg = config(os.environ)
        signal.signal(signal.SIGALRM, out_of_budget)
        signal.setitimer(signal.ITIMER_REAL, cfg["budget"])
        final = model_dir(cfg["root"], cfg["model"], cfg["revision"])
        if complete(final):
            log(f"{cfg['model']} is already complete in {final}")
            return 0
        download(cfg, final)
        return 0
    except BudgetExceeded:
        log(f"FAILED: the download budget of {cfg['budget']:g} s (DOWNLOAD_BUDGET_SECONDS, inference.modelDownloadBudgetSeconds) ran out before {cfg['model']} was complete; nothing was marked complete. Raise the budget or check the node's network")
        return 1
    except Fatal as e:
        log(f"FAILED: {e}")
        return 2
    except Exception as e:  # noqa: BLE001 -- one clear line, not a traceback, for any other failure
        log(f"FAILED: {type(e).__name__}: {e}")
        return 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


if __name__ == "__main__":
    sys.exit(main())
