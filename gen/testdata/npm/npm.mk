# The pinned Node toolchain of agentc's tests: zod, tsc, @opencode-ai/plugin
# and opencode (opencode serve), installed from the committed lockfile.
# Include this file from the top Makefile; paths work from any directory.
#
#   make npm        npm ci, only when package-lock.json or package.json is
#                   newer than the install (or there is none)
#   make npm-lock   rewrite package-lock.json after editing package.json

# NPM_DIR is this directory: it holds package.json, package-lock.json and,
# once installed, node_modules.
NPM_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

# npm ci writes node_modules/.package-lock.json last; it is the stamp of a
# complete install.
NPM_STAMP := $(NPM_DIR)/node_modules/.package-lock.json

.PHONY: npm npm-lock

npm: $(NPM_STAMP)

$(NPM_STAMP): $(NPM_DIR)/package-lock.json $(NPM_DIR)/package.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund
	touch $@

# The registry reachable from CI serves only some of opencode-ai's and
# msgpackr-extract's per-platform optional packages, so npm leaves the
# others out of the lock, and `npm ci` then rejects the lock as out of sync.
# NPM_COMPLETE_LOCK adds a lock entry (version, os, cpu, libc; no tarball)
# for each optional dependency npm left out: npm ci skips them on every
# other platform without fetching them.
npm-lock:
	cd $(NPM_DIR) && npm install --package-lock-only --no-audit --no-fund
	cd $(NPM_DIR) && node -e "$$NPM_COMPLETE_LOCK"

define NPM_COMPLETE_LOCK
const fs = require("fs");
const file = "package-lock.json";
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const pkgs = lock.packages;
const osOf = { darwin: "darwin", linux: "linux", win32: "win32", windows: "win32" };
const cpus = ["x64", "arm64", "arm", "ia32"];
const added = [];
for (const [at, meta] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies || {})) {
    const key = "node_modules/" + name;
    if (pkgs[key] || pkgs[(at ? at + "/" : "") + key]) continue;
    const parts = name.split("/").pop().split("-");
    const os = parts.map((p) => osOf[p]).find(Boolean);
    const cpu = parts.find((p) => cpus.includes(p));
    if (!os || !cpu) throw new Error("npm-lock: cannot tell the platform of " + name);
    const entry = { version: version, cpu: [cpu] };
    if (parts.includes("musl")) entry.libc = ["musl"];
    pkgs[key] = Object.assign(entry, { optional: true, os: [os] });
    added.push(name + "@" + version);
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => a.localeCompare(b, "en")));
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log("npm-lock: added " + (added.join(" ") || "nothing"));
endef
export NPM_COMPLETE_LOCK
