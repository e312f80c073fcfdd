#!/usr/bin/env python3
"""Downloads one Hugging Face model into a node-local cache, once per node (dynamo-efa `local-nvme` model cache).

Runs in the prefetch DaemonSet's pod as soon as a GPU node joins, and again as an init container of every worker
pod (after `cache-owner`), which then finds the download complete. All pods of a node share the cache directory (a
hostPath on the node's RAID0 NVMe array); a kernel lock (flock) on a file in it makes exactly one of them download
while the others wait, and the lock dies with its holder, so a killed pod never leaves a stale lock.

Order of writes (docs/PREFETCH.md): every file goes into a private staging directory, is checked against the listing
while it streams (never more than its listed size is written) and fsynced; when all are verified, the staging
directory is renamed into place (one atomic rename on one file system) and its parent fsynced; only then is the
completion marker written (temporary file, fsync, rename, fsync). The marker lives in `.complete/` beside `models/`,
not in the model's directory, so no file of the repository can stand in for it, and it lists only files that are on
disk in the final directory with their verified size and digest. Workers read the final directory only after the
prefetch exited 0, so an interrupted download is never used: the next pod to take the lock deletes it and starts over.

Verified: every file's size and hash against the revision's listing (asked with blobs=true): Git LFS files by the sha256
the listing carries (`lfs.sha256`), the others by their git blob id (`blobId`: sha1 of "blob <size>\\0" + content).
A listing with no files, a file without a size or hash, a name that could leave the model's directory or collide with
another, is a failure naming the model and the file, never an empty or partial "complete" model. A start that finds
a listed file missing or of another size (a cache edited or damaged on the node) downloads again.

The cache directory is the only place it writes or deletes, and it never follows a symbolic link it did not create:
every path under CACHE_ROOT is opened one component at a time from a directory descriptor with O_NOFOLLOW; a link
found where the prefetch keeps its own directories or files is removed as a link (its target is never touched),
and a tree is deleted through descriptors without following any link in it.

The token goes only to the endpoint's own scheme, host and port: a redirect elsewhere (Hugging Face sends downloads to
its CDN) is followed without it, and a redirect from https to http is refused unless HF_ENDPOINT itself is http.

A moving revision (a branch such as "main", or a tag) is what the program resolves to one commit per deployment
(components/inference/revision.ts), so every pod of a graph gets the same 40-hex MODEL_REVISION; given a moving
revision directly, this script downloads whatever commit it names at the time and says which.

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
  METADATA_ONLY            "1": only the files a Dynamo model card names (METADATA_FILES: config, tokenizer,
                           generation config, chat template), nothing else of the repository (the Frontend's copy of
                           what the workers' card names, in a size-limited emptyDir). Its completion marker has a key
                           of its own, so a full run on the same CACHE_ROOT never takes it for complete weights.
Exit codes (EXIT_* below): 0 complete; 1 a failure a later start may not meet (network, the hub's answers, a file
that failed verification, the budget); 2 no access / not found / bad input (fix the stack: retrying will not help);
3 the node's cache cannot hold the model (out of space, not writable, not a directory).
Python standard library only.
"""
import errno, fcntl, hashlib, http.client, json, os, random, re, signal, socket, stat, sys, time, urllib.error, urllib.parse, urllib.request

EXIT_OK, EXIT_FAILED, EXIT_FATAL, EXIT_NODE = 0, 1, 2, 3
# The completion markers' directory under CACHE_ROOT: one file per model revision, named by its key.
MARKERS = ".complete"
# The same expressions as components/inference/validate.ts (the render's validation); tests/unit/model-id.spec.ts
# runs both over the same cases. Each part: letters, digits, "_", "-", "." (Hugging Face's own rule), starting and
# ending with a letter, digit or "_", at most 96 characters; no "--" (the cache's directory separator) or "..".
MODEL_ID_RULE = re.compile(r"^(?!.*--)(?!.*\.\.)(?=[^/]{1,96}/[^/]{1,96}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?/[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$")
REVISION_RULE = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
# Never needed by vLLM/TRT-LLM when safetensors are present: Meta's consolidated checkpoints, other formats.
SKIP_WITH_SAFETENSORS = (".bin", ".pt", ".pth", ".h5", ".msgpack", ".onnx", ".gguf", ".ckpt")
# What METADATA_ONLY fetches: the top-level files a Dynamo worker's model card names, which the Frontend reads
# (lib/llm/src/model_card.rs: config.json, tokenizer.json, tokenizer_config.json, generation_config.json,
# chat_template.jinja; tests/contracts/facts/dynamo-model-card.json). An allow-list: a repository's stray top-level
# files (rust_model.ot, weights.npz, model.nemo) are never fetched into the Frontend's emptyDir.
METADATA_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja")
# Appended to a model revision's key for a METADATA_ONLY download's marker and staging: "+" is in neither a model id
# nor a revision (MODEL_ID_RULE, REVISION_RULE), so no revision's key can be another's metadata key.
METADATA_KEY_SUFFIX = "+metadata"
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OUT_OF_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
CHUNK = 1 << 20


class Fatal(Exception):
    """A failure retrying cannot fix (no access, not found, bad input): exit 2."""


class NodeCache(Exception):
    """The node's cache directory cannot hold the model (space, permissions, a non-directory in the way): exit 3."""


class Corrupt(Exception):
    """A file whose bytes do not match the listing (retried: a transfer can be cut or garbled)."""


class BudgetExceeded(BaseException):
    """The download budget ran out. A BaseException, so no `except Exception` on the way can swallow it."""


def log(msg):
    print(f"dynamo-efa prefetch: {msg}", file=sys.stderr, flush=True)


def model_dir(root, model, revision):
    """The final directory of a model revision (what workers mount as --model)."""
    return os.path.join(root, "models", model.replace("/", "--"), revision)


def cache_key(model, revision):
    """One name per model revision (unique: a model id has no "--"), for its lock, marker and staging directories."""
    return f"{model.replace('/', '--')}--{revision}"


def marker_key(cfg, metadata_only=None):
    """The key of the marker (and staging) of this run's kind: a full download's, or a METADATA_ONLY one's."""
    key = cache_key(cfg["model"], cfg["revision"])
    only = cfg["metadata_only"] if metadata_only is None else metadata_only
    return key + METADATA_KEY_SUFFIX if only else key


# --- the cache directory, through descriptors: nothing under CACHE_ROOT is reached through a link -------------

class Dir:
    """An open directory under the cache root, with the path it is known by (for messages only)."""

    def __init__(self, fd, path):
        self.fd, self.path = fd, path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)

    def lstat(self, name):
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def sub(self, name, create=True):
        """The directory `name` in this one: created if missing, a link there removed as a link, never followed."""
        for _ in range(5):
            st = self.lstat(name)
            if st is None:
                if not create:
                    raise NodeCache(f"{self.path}/{name} does not exist")
                try:
                    os.mkdir(name, 0o755, dir_fd=self.fd)
                except FileExistsError:
                    pass  # another pod made it between the two calls
                continue
            if stat.S_ISLNK(st.st_mode):
                log(f"removing the symbolic link {self.path}/{name} (the prefetch never follows a link it did not create; its target is left alone)")
                os.unlink(name, dir_fd=self.fd)
                continue
            if not stat.S_ISDIR(st.st_mode):
                raise NodeCache(f"{self.path}/{name} is not a directory; the prefetch keeps its own directory there: remove it on the node")
            try:
                return Dir(os.open(name, DIR_FLAGS, dir_fd=self.fd), f"{self.path}/{name}")
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                    raise  # ELOOP/ENOTDIR/ENOENT: swapped for a link or removed since the lstat; look again
        raise NodeCache(f"{self.path}/{name} keeps changing while the prefetch opens it")

    def find(self, name):
        """The existing directory `name` (a relative path) without following any link, or None."""
        d = Dir(os.dup(self.fd), self.path)
        for part in name.split("/"):
            try:
                nxt = Dir(os.open(part, DIR_FLAGS, dir_fd=d.fd), f"{d.path}/{part}")
            except OSError:
                nxt = None
            os.close(d.fd)
            if nxt is None:
                return None
            d = nxt
        return d


def open_root(root):
    """CACHE_ROOT itself (the pod's mount point, configured, so it is the one path resolved as given; made if missing)."""
    try:
        os.makedirs(root, 0o755, exist_ok=True)
        return Dir(os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), root.rstrip("/") or "/")
    except OSError as e:
        raise NodeCache(f"the cache directory CACHE_ROOT={root} cannot be opened: {e.strerror}") from None


def remove_tree(parent, name):
    """Deletes parent/name, never following a link: a link or file is unlinked, a directory emptied through its fd."""
    st = parent.lstat(name)
    if st is None:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent.fd)
        return
    with Dir(os.open(name, DIR_FLAGS, dir_fd=parent.fd), f"{parent.path}/{name}") as d:
        now = os.fstat(d.fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise NodeCache(f"{d.path} was replaced while the prefetch removed it")
        for entry in os.listdir(d.fd):
            remove_tree(d, entry)
    os.rmdir(name, dir_fd=parent.fd)


def read_file(d, name, limit=1 << 24):
    """Text of the regular file d/name (not a link), or None; O_NONBLOCK so a FIFO planted there cannot hang the open."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=d.fd)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read(limit).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else None


def write_file(d, name, data):
    """Writes d/name whole: a temporary file, fsync, rename over name, fsync of the directory."""
    tmp = f".{name}.{os.getpid()}.tmp"
    remove_tree(d, tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=d.fd)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, name, src_dir_fd=d.fd, dst_dir_fd=d.fd)
    os.fsync(d.fd)


# --- HTTP: the token only to the endpoint's origin ---------------------------------------------------------

def origin(url):
    """(scheme, host, port) of a URL, the port defaulted: what the token is bound to."""
    p = urllib.parse.urlsplit(url)
    try:
        port = p.port
    except ValueError:
        port = -1
    return p.scheme.lower(), (p.hostname or "").lower(), port or {"http": 80, "https": 443}.get(p.scheme.lower(), -1)


def shown(url):
    """A URL for a message: scheme, host, port and path (no query, no user info)."""
    p = urllib.parse.urlsplit(url)
    return f"{p.scheme}://{p.hostname or ''}{f':{p.port}' if p.port else ''}{p.path}"


class RedirectRefused(Exception):
    """A redirect the prefetch will not follow (to http from an https endpoint, to another scheme, with user info)."""


class TokenOnlyToEndpoint(urllib.request.HTTPRedirectHandler):
    """Follows redirects (HF sends file downloads to its CDN) but sends the token only to the endpoint's origin."""

    def __init__(self, endpoint):
        self.endpoint = origin(endpoint)

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        p = urllib.parse.urlsplit(newurl)
        if p.scheme not in ("http", "https"):
            raise RedirectRefused(f"refusing a redirect from {shown(req.full_url)} to a {p.scheme or 'schemeless'} URL: only http(s) is fetched")
        if p.username is not None or p.password is not None:
            raise RedirectRefused(f"refusing a redirect from {shown(req.full_url)} to a URL with user information ({shown(newurl)})")
        if p.scheme == "http" and self.endpoint[0] == "https":
            raise RedirectRefused(f"refusing a redirect from {shown(req.full_url)} to {shown(newurl)}: from https to http (the endpoint is https; the download would travel in clear text)")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and origin(newurl) != self.endpoint:
            new.remove_header("Authorization")
        return new


def remaining(c):
    """Seconds left of the budget (the alarm ends the run at 0; this bounds each socket wait below it)."""
    return max(0.5, c["deadline"] - time.monotonic())


NETWORK_ERRORS = (urllib.error.URLError, socket.timeout, ConnectionError, http.client.HTTPException, OSError)


class Client:
    def __init__(self, cfg):
        self.cfg = cfg
        self.opener = urllib.request.build_opener(TokenOnlyToEndpoint(cfg["endpoint"]))

    def access_error(self, status, url, file):
        m, tok, c = self.cfg["model"], self.cfg["token"], self.cfg
        if status == 404 and file:
            return RuntimeError(f"downloading {file} of {m}: HTTP 404 from {shown(url)}: the revision's listing names a file the hub does not serve")
        if status == 404:
            return Fatal(f"model {m} (revision {c['revision']}) not found at {c['endpoint']}; check inference.model and inference.modelRevision, or the model is gated and hidden from this token")
        if not tok:
            return Fatal(f"model {m} needs a Hugging Face token (HTTP {status}) and HF_TOKEN is empty: set dynamo-efa:hfToken or inference.hfTokenSecretName")
        return Fatal(f"the Hugging Face token has no access to model {m} (HTTP {status}): accept the model's license at {c['endpoint']}/{m} with the token's account, or use a token that has access")

    def open(self, url, what, file=None):
        """Opens `url`, retrying 429/5xx and broken connections with exponential backoff (Retry-After honoured)."""
        c = self.cfg
        for attempt in range(1, c["attempts"] + 1):
            req = urllib.request.Request(url, headers={"User-Agent": "dynamo-efa-prefetch/2"})
            if c["token"] and origin(url) == origin(c["endpoint"]):
                req.add_header("Authorization", f"Bearer {c['token']}")
            wait = min(60.0, c["base"] * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
            try:
                return self.opener.open(req, timeout=min(60.0, remaining(c)))
            except RedirectRefused as e:
                raise RuntimeError(f"{what}: {e}") from None
            except urllib.error.HTTPError as e:
                if e.code in (401, 403, 404):
                    raise self.access_error(e.code, url, file) from None
                if e.code != 429 and e.code < 500:
                    raise RuntimeError(f"{what}: HTTP {e.code} from {shown(e.geturl() or url)}") from None
                after = (e.headers.get("Retry-After", "") if e.headers else "").strip()
                if after.isdigit():
                    wait = min(60.0, float(after))
                reason = f"HTTP {e.code}"
            except NETWORK_ERRORS as e:
                reason = str(getattr(e, "reason", e)) or type(e).__name__
            if attempt == c["attempts"] or time.monotonic() + wait > c["deadline"]:
                raise RuntimeError(f"{what}: {reason} after {attempt} attempts")
            log(f"{what}: {reason}; retry {attempt}/{c['attempts'] - 1} in {wait:.1f}s")
            time.sleep(wait)

    def listing(self):
        """The revision's commit and its files as (name, size, algorithm, digest), each verified after download."""
        c = self.cfg
        url = f"{c['endpoint']}/api/models/{c['model']}/revision/{urllib.parse.quote(c['revision'])}?blobs=true"
        what = f"listing {c['model']}"
        with self.open(url, what) as r:
            try:
                info = json.loads(r.read(1 << 28))
            except NETWORK_ERRORS as e:
                raise RuntimeError(f"{what}: the answer was cut ({type(e).__name__}: {e})") from None
            except ValueError as e:
                raise RuntimeError(f"the listing of {c['model']} at revision {c['revision']} is not JSON ({e})") from None
        sha, files = parse_listing(info, c["model"], c["revision"])
        return sha, ([f for f in files if f[0] in METADATA_FILES] if c["metadata_only"] else files)

    def fetch(self, sha, f, staging):
        """Downloads one file into the staging tree and checks its size and hash; a bad transfer is retried from the start."""
        c = self.cfg
        name, size, algo, digest = f
        url = f"{c['endpoint']}/{c['model']}/resolve/{sha}/{urllib.parse.quote(name)}"
        for attempt in range(1, c["attempts"] + 1):
            try:
                return self.fetch_once(url, f, staging)
            except Corrupt as e:
                why = str(e)
            if attempt == c["attempts"] or time.monotonic() > c["deadline"]:
                raise Corrupt(f"downloading {name} of {c['model']}: {why} after {attempt} attempts")
            log(f"downloading {name}: {why}; retry {attempt}/{c['attempts'] - 1}")
            time.sleep(min(60.0, c["base"] * 2 ** (attempt - 1)))

    def fetch_once(self, url, f, staging):
        """One attempt: streams at most the listed size into the file, fsyncs it, verifies it."""
        name, size, algo, digest = f
        h = hashlib.sha256() if algo == "sha256" else hashlib.sha1(b"blob %d\0" % size)
        with self.open(url, f"downloading {name}", file=name) as r:
            announced = (r.headers.get("Content-Length") or "").strip()
            if announced.isdigit() and int(announced) != size:
                raise Corrupt(f"the server announced {announced} bytes, the listing {size}")
            parent, base = staging_parent(staging, name)
            with parent:
                fd = os.open(base, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=parent.fd)
                try:
                    got = copy_body(r, fd, size, h)
                    os.fsync(fd)
                finally:
                    os.close(fd)
        if got != size:
            raise Corrupt(f"got {got} of {size} bytes")
        if h.hexdigest() != digest:
            raise Corrupt(f"{algo} {h.hexdigest()} is not the listing's {digest}")
        return got


def copy_body(r, fd, size, h):
    """Writes the body to fd, never more than `size` bytes: a longer body stops there and fails."""
    got = 0
    while True:
        try:
            chunk = r.read(min(CHUNK, size - got + 1))
        except NETWORK_ERRORS as e:
            raise Corrupt(f"got {got} of {size} bytes ({type(e).__name__}: {e})") from None
        if not chunk:
            return got
        if got + len(chunk) > size:
            raise Corrupt(f"the server sent more than the listing's {size} bytes; stopped at {size}")
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view):]
        h.update(chunk)
        got += len(chunk)


def staging_parent(staging, name):
    """The directory of `name` (made as needed) in the staging tree, and the file's own name."""
    parts = name.split("/")
    d = Dir(os.dup(staging.fd), staging.path)
    for part in parts[:-1]:
        with d:
            d = d.sub(part)
    return d, parts[-1]


# --- the listing: every entry checked before anything is written ---------------------------------------

def bad_name(name):
    """Why a listed file name cannot be a path inside the model's directory, or None."""
    if not isinstance(name, str) or not name:
        return "is not a file name"
    if "\0" in name or name.startswith("/") or len(name) > 1024:
        return "is absolute, too long or has a NUL byte"
    if any(part in ("", ".", "..") or len(part.encode()) > 255 for part in name.split("/")):
        return "has an empty, '.' or '..' part, or a part over 255 bytes"
    return None


def parse_listing(info, model, revision):
    """(sha, files) of the listing, or a RuntimeError naming the model, the revision and the file that is wrong."""
    at = f"the listing of {model} at revision {revision}"
    if not isinstance(info, dict):
        raise RuntimeError(f"{at} is not a JSON object (got {type(info).__name__}); is HF_ENDPOINT a Hugging Face hub?")
    sha = info.get("sha")
    if not isinstance(sha, str) or not COMMIT.match(sha):
        raise RuntimeError(f"{at} carries no commit sha ({str(sha)[:80]!r})")
    if COMMIT.match(revision) and sha != revision:
        raise RuntimeError(f"the listing of {model} is for commit {sha!r}, not the pinned {revision}")
    siblings = info.get("siblings")
    if not isinstance(siblings, list):
        raise RuntimeError(f"{at} has no list of files (siblings is {type(siblings).__name__})")
    files = [expected(s, i, at) for i, s in enumerate(siblings)]
    if any(f[0].endswith(".safetensors") for f in files):
        files = [f for f in files if not f[0].startswith("original/") and not f[0].endswith(SKIP_WITH_SAFETENSORS)]
    if not files:
        raise RuntimeError(f"{at} names no files; refusing to mark an empty model complete")
    names = set()
    for f in files:
        if f[0] in names:
            raise RuntimeError(f"{at} names {f[0]} twice")
        names.add(f[0])
    for f in files:
        parts = f[0].split("/")
        clash = next(("/".join(parts[:i]) for i in range(1, len(parts)) if "/".join(parts[:i]) in names), None)
        if clash:
            raise RuntimeError(f"{at} names {clash} as a file and as the directory of {f[0]}")
    return sha, files


def expected(s, i, at):
    """(name, size, algorithm, digest) of one listing entry; a name, size or hash missing or malformed is a failure."""
    if not isinstance(s, dict):
        raise RuntimeError(f"{at}: siblings[{i}] is not an object ({str(s)[:80]!r})")
    name, size, lfs = s["rfilename"] if "rfilename" in s else None, s.get("size"), s.get("lfs")
    why = bad_name(name)
    if why:
        raise RuntimeError(f"{at}: refusing file name {str(name)[:200]!r} (siblings[{i}].rfilename {why})")
    if lfs is not None and not isinstance(lfs, dict):
        raise RuntimeError(f"{at} gives {name} an lfs field that is not an object")
    lfs = s["lfs"] if isinstance(lfs, dict) else {}
    lsize, lsha = lfs.get("size"), lfs.get("sha256")
    if lfs and type(lsize) is int and lsize >= 0 and isinstance(lsha, str) and SHA256.match(lsha):
        return name, lfs["size"], "sha256", lfs["sha256"]
    if lfs:
        raise RuntimeError(f"{at} gives {name} an lfs entry without a size and a 64-hex sha256: cannot verify it")
    blob = s.get("blobId")
    if type(size) is int and size >= 0 and isinstance(blob, str) and COMMIT.match(blob):
        return name, size, "git-sha1", blob
    raise RuntimeError(f"{at} gives {name} no size and hash (lfs.sha256, or size and a 40-hex blobId): cannot verify it")


# --- completion ------------------------------------------------------------------------------------------

def read_marker(root, cfg, metadata_only):
    """The marker of this model revision and kind, when it is well formed and names this model, revision and kind."""
    markers = root.find(MARKERS)
    if markers is None:
        return None
    with markers:
        text = read_file(markers, marker_key(cfg, metadata_only))
    try:
        m = json.loads(text) if text else None
    except ValueError:
        return None
    ok = (isinstance(m, dict) and m.get("model") == cfg["model"] and m.get("revision") == cfg["revision"]
          and m.get("metadata_only", False) is metadata_only)
    files = m.get("files") if ok else None
    if not isinstance(files, dict) or not files or not all(type(v) is dict and type(v.get("size")) is int for v in files.values()):
        return None
    return m


def missing(final, files):
    """The first listed file that is not a regular file of its size in the final directory (never through a link)."""
    for name, meta in sorted(files.items()):
        if bad_name(name):
            return name
        parent, base = os.path.dirname(name), os.path.basename(name)
        d = final.find(parent) if parent else Dir(os.dup(final.fd), final.path)
        if d is None:
            return name
        with d:
            st = d.lstat(base)
        if st is None or not stat.S_ISREG(st.st_mode) or st.st_size != meta["size"]:
            return name
    return None


def complete(root, cfg):
    """True when a marker this run can trust exists and every file it lists is in the final directory with its
    recorded size. A full run trusts only a full download's marker; a METADATA_ONLY run also a full one (it holds
    every file of the card)."""
    kinds = [True, False] if cfg["metadata_only"] else [False]
    return any(complete_as(root, cfg, only) for only in kinds)


def complete_as(root, cfg, metadata_only):
    """`complete` for one kind of marker."""
    marker = read_marker(root, cfg, metadata_only)
    if marker is None:
        return False
    final = root.find(model_dir("", cfg["model"], cfg["revision"]))
    if final is None:
        log(f"the completion marker of {cfg['model']}@{cfg['revision']} has no model directory; downloading again")
        return False
    with final:
        gone = missing(final, marker["files"])
    if gone is not None:
        log(f"{final.path}: {gone} is not the {marker['files'][gone]['size']}-byte file its completion marker records; downloading again")
        return False
    return True


# --- one download per node, under the node lock -------------------------------------------------------------

def lock(locks, name, model):
    """Takes the node's lock of this model revision (a flock on a file opened without following a link)."""
    while True:
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=locks.fd)
            break
        except OSError as e:
            if e.errno != errno.ELOOP:
                raise
            log(f"removing the symbolic link {locks.path}/{name} (the prefetch never follows a link it did not create)")
            os.unlink(name, dir_fd=locks.fd)
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


def clear_previous(root, cfg, key, org):
    """Under the lock: this run's interrupted staging directories (exact key), the revision's untrusted final
    directory and both its markers (they describe that directory)."""
    with root.sub(".staging") as staging_root:
        for name in os.listdir(staging_root.fd):
            if name.split("@", 1)[0] == key:  # "<key>@<host>.<pid>": a key never holds "@", so v1 never matches v1.0
                log(f"removing an interrupted download: {staging_root.path}/{name}")
                remove_tree(staging_root, name)
    if org.lstat(cfg["revision"]) is not None:  # a final directory without a valid marker is not ours to trust
        log(f"removing {org.path}/{cfg['revision']}: it has no valid completion marker")
        remove_tree(org, cfg["revision"])
    with root.sub(MARKERS) as markers:
        for only in (False, True):
            remove_tree(markers, marker_key(cfg, only))


def check_space(root, files, model):
    """Refuses a download the node's cache has no room for, before anything is written."""
    need = sum(f[1] for f in files)
    st = os.fstatvfs(root.fd)
    free = st.f_bavail * st.f_frsize
    if need > free:
        raise NodeCache(f"{model} needs {need} bytes and the node cache {root.path} has {free} free: remove unused models under {root.path}/models on the node, or use a pool with more instance storage")


def download(cfg, root):
    model, revision = cfg["model"], cfg["revision"]
    key = marker_key(cfg)
    with root.sub(".locks") as locks:  # one lock per revision: both kinds of run write its final directory
        fd = lock(locks, cache_key(model, revision) + ".lock", model)
    try:
        if complete(root, cfg):
            log(f"{model} was completed by another pod on this node")
            return
        with root.sub("models") as models, models.sub(model.replace("/", "--")) as org:
            clear_previous(root, cfg, key, org)
            client = Client(cfg)
            sha, files = client.listing()
            if not COMMIT.match(revision):
                log(f"revision {revision} of {model} moves; this node downloads its commit {sha} now (pin inference.modelRevision to a commit to choose it)")
            check_space(root, files, model)
            fetch_all(cfg, client, root, org, key, sha, files)
    finally:
        os.close(fd)


def fetch_all(cfg, client, root, org, key, sha, files):
    """Every file into a private staging directory; rename into place; then the marker, listing what is on disk."""
    name = f"{key}@{socket.gethostname()}.{os.getpid()}"
    start, model, revision = time.monotonic(), cfg["model"], cfg["revision"]
    with root.sub(".staging") as staging_root:
        os.mkdir(name, 0o755, dir_fd=staging_root.fd)
        try:
            with staging_root.sub(name, create=False) as staging:
                total = sum(client.fetch(sha, f, staging) for f in files)
                sync_tree(staging)
            os.rename(name, revision, src_dir_fd=staging_root.fd, dst_dir_fd=org.fd)
        except BaseException:
            try:  # frees the space for the next attempt; nothing of it was ever used
                remove_tree(staging_root, name)
            except OSError as e:
                log(f"could not remove {staging_root.path}/{name} ({e.strerror}); the next start removes it")
            raise
    os.fsync(org.fd)
    with org.sub(revision, create=False) as final:
        listed = {f[0]: {"size": f[1], "algorithm": f[2], "digest": f[3]} for f in files}
        gone = missing(final, listed)
        if gone is not None:
            raise RuntimeError(f"{gone} of {model} is not in {final.path} after the rename; not marking it complete")
    marker = {"model": model, "revision": revision, "sha": sha, "bytes": total, "metadata_only": cfg["metadata_only"],
              "seconds": round(time.monotonic() - start, 1), "files": listed}
    with root.sub(MARKERS) as markers:
        write_file(markers, key, json.dumps(marker, indent=1, sort_keys=True).encode())
    log(f"{model}@{sha}: {len(files)} files, {total} bytes verified in {marker['seconds']}s -> {final.path}")


def sync_tree(d):
    """fsyncs every directory of the staging tree (the files were fsynced as they were written)."""
    for entry in os.listdir(d.fd):
        st = d.lstat(entry)
        if st is not None and stat.S_ISDIR(st.st_mode):
            with d.sub(entry, create=False) as sub:
                sync_tree(sub)
    os.fsync(d.fd)


# --- configuration and exit codes ---------------------------------------------------------------------------

def config(env):
    model, root = env.get("MODEL_ID", ""), env.get("CACHE_ROOT", "")
    revision = env.get("MODEL_REVISION") or "main"
    if not MODEL_ID_RULE.fullmatch(model):
        raise Fatal(f"MODEL_ID must be a Hugging Face model id \"org/name\" (letters, digits, '_', '-', '.'; no '--' or '..'); got {model!r}")
    if not REVISION_RULE.fullmatch(revision):
        raise Fatal(f"MODEL_REVISION must be a branch, tag or 40-hex commit without '/'; got {revision!r}")
    if not root or not root.startswith("/"):
        raise Fatal(f"CACHE_ROOT must be an absolute directory; got {root!r}")
    budget = number(env, "DOWNLOAD_BUDGET_SECONDS", 1800, 1, MAX_BUDGET_SECONDS)
    endpoint = (env.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.query or parts.fragment or origin(endpoint)[2] == -1:
        raise Fatal(f"HF_ENDPOINT must be an http(s) URL such as \"https://huggingface.co\" (no user, query or fragment); got {endpoint!r}")
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


def run(cfg):
    with open_root(cfg["root"]) as root:
        if complete(root, cfg):
            log(f"{cfg['model']} is already complete in {model_dir(cfg['root'], cfg['model'], cfg['revision'])}")
            return EXIT_OK
        download(cfg, root)
        return EXIT_OK


def main():
    cfg = None
    try:
        cfg = config(os.environ)
        signal.signal(signal.SIGALRM, out_of_budget)
        signal.setitimer(signal.ITIMER_REAL, cfg["budget"])
        return run(cfg)
    except BudgetExceeded:
        log(f"FAILED: the download budget of {cfg['budget']:g} s (DOWNLOAD_BUDGET_SECONDS, inference.modelDownloadBudgetSeconds) ran out before {cfg['model']} was complete; nothing was marked complete. Raise the budget or check the node's network")
        return EXIT_FAILED
    except Fatal as e:
        log(f"FAILED: {e}")
        return EXIT_FATAL
    except NodeCache as e:
        log(f"FAILED: the node cache: {e}")
        return EXIT_NODE
    except OSError as e:  # the network's are wrapped where they happen: what is left is the node's file system
        full = e.errno in OUT_OF_SPACE
        log(f"FAILED: the node cache {'is full' if full else 'cannot be written'}: {e.strerror} ({e.filename or cfg and cfg['root']}); nothing was marked complete{'. Free space on the node or use a pool with more instance storage' if full else ''}")
        return EXIT_NODE
    except Exception as e:  # noqa: BLE001 -- one clear line, not a traceback, for any other failure
        log(f"FAILED: {type(e).__name__}: {e}" if not isinstance(e, (RuntimeError, Corrupt)) else f"FAILED: {e}")
        return EXIT_FAILED
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


if __name__ == "__main__":
    sys.exit(main())
