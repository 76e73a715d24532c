//===- TuningDb.cpp - the sweep's results, kept in SQLite -----------------===//
#include "argus/Tuning/TuningDb.h"

#include "argus/Emit/Compiler.h"
#include "argus/Emit/LibraryBuilder.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fstream>
#include <sys/utsname.h>

namespace argus::tuning {

namespace {

// One row per candidate. The identity lives in `meta`: every row of a
// database shares it (open() refuses a mismatch), so rows do not repeat it.
constexpr const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  op TEXT NOT NULL, shape_key TEXT NOT NULL, template TEXT NOT NULL,
  parameters TEXT NOT NULL, techniques TEXT NOT NULL,
  verification TEXT NOT NULL, detail TEXT NOT NULL, correct INTEGER NOT NULL,
  max_error REAL NOT NULL, seconds REAL NOT NULL, measured INTEGER NOT NULL,
  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (op, shape_key, template, parameters, techniques));
CREATE TABLE IF NOT EXISTS kernel_sources (template TEXT PRIMARY KEY, source TEXT NOT NULL);
)sql";

// The identity fields that make results incomparable, with their meta keys.
struct IdentityField {
  const char *key, *what;
  std::string DbIdentity::*member;
};
const IdentityField kBindingFields[] = {{"generator_version", "generator version", &DbIdentity::generatorVersion},
                                        {"target", "target", &DbIdentity::target},
                                        {"device", "device", &DbIdentity::device},
                                        // A kernel's time depends on the runtime headers it includes (its
                                        // micro-kernels) and its flags, not only on its own source.
                                        {"kernel_build", "kernel runtime headers and flags (digest)",
                                         &DbIdentity::kernelBuild}};

constexpr const char *kResultColumns =
    "op, shape_key, template, parameters, techniques, verification, detail, correct, max_error, seconds, "
    "measured, recorded_at";

/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  explicit operator bool() const { return stmt_ != nullptr; }
  sqlite3_stmt *get() const { return stmt_; }
  void bind(int i, const std::string &s) { sqlite3_bind_text(stmt_, i, s.c_str(), int(s.size()), SQLITE_TRANSIENT); }
  void bind(int i, double d) { sqlite3_bind_double(stmt_, i, d); }
  void bind(int i, bool b) { sqlite3_bind_int(stmt_, i, b ? 1 : 0); }
  std::string text(int column) const {
    const unsigned char *t = sqlite3_column_text(stmt_, column);
    return t ? reinterpret_cast<const char *>(t) : "";
  }

private:
  sqlite3_stmt *stmt_ = nullptr;
};

std::string exec(sqlite3 *db, const std::string &sql) {
  char *message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return "";
  std::string error = message ? message : sqlite3_errmsg(db);
  sqlite3_free(message);
  return error;
}

std::optional<Verification> parseVerification(const std::string &s) {
  for (Verification v : {Verification::Proved, Verification::Refuted, Verification::Failed})
    if (s == verificationName(v)) return v;
  return std::nullopt;
}

/// The meta rows as a map (empty for a new database).
std::vector<std::pair<std::string, std::string>> readMeta(sqlite3 *db) {
  std::vector<std::pair<std::string, std::string>> meta;
  Statement st(db, "SELECT key, value FROM meta ORDER BY key");
  while (st && sqlite3_step(st.get()) == SQLITE_ROW) meta.emplace_back(st.text(0), st.text(1));
  return meta;
}

std::string writeIdentity(sqlite3 *db, const DbIdentity &id) {
  const std::pair<const char *, const std::string *> rows[] = {{"generator_version", &id.generatorVersion},
                                                               {"target", &id.target},
                                                               {"device", &id.device},
                                                               {"kernel_build", &id.kernelBuild},
                                                               {"toolchain", &id.toolchain},
                                                               {"schema", nullptr}};
  for (const auto &[key, value] : rows) {
    Statement st(db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
    if (!st) return sqlite3_errmsg(db);
    st.bind(1, std::string(key));
    st.bind(2, value ? *value : std::string("1"));
    if (sqlite3_step(st.get()) != SQLITE_DONE) return sqlite3_errmsg(db);
  }
  return "";
}

/// "" when `stored` (the meta rows) admits results for `wanted`.
std::string identityMismatch(const std::vector<std::pair<std::string, std::string>> &stored,
                             const DbIdentity &wanted) {
  std::string differences;
  for (const IdentityField &f : kBindingFields) {
    std::string have;
    for (const auto &[key, value] : stored)
      if (key == f.key) have = value;
    const std::string &want = wanted.*f.member;
    if (have != want)
      differences += std::string(differences.empty() ? "" : "; ") + f.what + " '" + have + "' (this run: '" + want + "')";
  }
  return differences;
}

} // namespace

const char *verificationName(Verification v) {
  switch (v) {
  case Verification::Proved: return "proved";
  case Verification::Refuted: return "refuted";
  case Verification::Failed: return "failed";
  }
  return "failed";
}

std::variant<std::unique_ptr<TuningDb>, std::string> TuningDb::open(const std::string &path,
                                                                    const DbIdentity &identity, bool retune) {
  sqlite3 *raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string error = "cannot open tuning database '" + path + "': " + (raw ? sqlite3_errmsg(raw) : "out of memory");
    sqlite3_close(raw);
    return error;
  }
  std::unique_ptr<TuningDb> db(new TuningDb(raw, identity));
  auto fail = [&](const std::string &what) { return "tuning database '" + path + "': " + what; };
  sqlite3_busy_timeout(raw, 5000); // another sweep on the same file waits, not fails
  // WAL: a transaction is durable once committed, so a killed process loses
  // nothing it reported; NORMAL sync only risks the last commits on power loss.
  for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"})
    if (std::string e = exec(raw, pragma); !e.empty()) return fail(e);
  if (std::string e = exec(raw, kSchema); !e.empty())
    return fail(e + " (is it an Argus tuning database?)");

  if (std::string e = exec(raw, "BEGIN IMMEDIATE"); !e.empty()) return fail(e);
  const auto meta = readMeta(raw);
  std::string problem;
  if (meta.empty()) {
    problem = writeIdentity(raw, identity);
  } else if (std::string mismatch = identityMismatch(meta, identity); !mismatch.empty()) {
    if (!retune) {
      exec(raw, "ROLLBACK");
      return fail("made for another configuration: " + mismatch +
                  ". Its results do not apply here; pass --retune to discard them and tune again, or use "
                  "another database file.");
    }
    problem = exec(raw, "DELETE FROM results; DELETE FROM kernel_sources; DELETE FROM meta WHERE key LIKE 'note:%'");
    if (problem.empty()) problem = writeIdentity(raw, identity);
  } else {
    problem = writeIdentity(raw, identity); // the toolchain may have changed: record the current one
  }
  if (problem.empty()) problem = exec(raw, "COMMIT");
  if (!problem.empty()) {
    exec(raw, "ROLLBACK");
    return fail(problem);
  }
  return db;
}

std::variant<std::unique_ptr<TuningDb>, std::string> TuningDb::openExisting(const std::string &path) {
  sqlite3 *raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string error = "cannot open tuning database '" + path + "': " + (raw ? sqlite3_errmsg(raw) : "out of memory");
    sqlite3_close(raw);
    return error;
  }
  std::unique_ptr<TuningDb> db(new TuningDb(raw, {}));
  sqlite3_busy_timeout(raw, 5000);
  const auto meta = readMeta(raw);
  if (meta.empty()) return "'" + path + "' is not an Argus tuning database (no identity recorded)";
  for (const auto &[key, value] : meta) {
    if (key == "toolchain") db->identity_.toolchain = value;
    for (const IdentityField &f : kBindingFields)
      if (key == f.key) db->identity_.*f.member = value;
  }
  return db;
}

TuningDb::~TuningDb() { sqlite3_close(db_); }

bool TuningDb::contains(const CandidateKey &key) const {
  Statement st(db_, "SELECT 1 FROM results WHERE op = ?1 AND shape_key = ?2 AND template = ?3 AND parameters = ?4 "
                    "AND techniques = ?5");
  if (!st) return false;
  const std::string *fields[] = {&key.op, &key.shapeKey, &key.templatePath, &key.parameters, &key.techniques};
  for (int i = 0; i < 5; ++i) st.bind(i + 1, *fields[i]);
  return sqlite3_step(st.get()) == SQLITE_ROW;
}

std::string TuningDb::record(const CandidateResult &r) {
  // One statement is one implicit transaction: committed when it returns.
  Statement st(db_, "INSERT OR REPLACE INTO results (op, shape_key, template, parameters, techniques, verification, "
                    "detail, correct, max_error, seconds, measured) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                    "?11)");
  if (!st) return sqlite3_errmsg(db_);
  st.bind(1, r.key.op);
  st.bind(2, r.key.shapeKey);
  st.bind(3, r.key.templatePath);
  st.bind(4, r.key.parameters);
  st.bind(5, r.key.techniques);
  st.bind(6, std::string(verificationName(r.verification)));
  st.bind(7, r.detail);
  st.bind(8, r.correct);
  st.bind(9, r.maxError);
  st.bind(10, r.seconds);
  st.bind(11, r.measured);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return sqlite3_errmsg(db_);
  return "";
}

std::vector<CandidateResult> TuningDb::query(const char *where, const std::vector<std::string> &params) const {
  std::vector<CandidateResult> out;
  Statement st(db_, (std::string("SELECT ") + kResultColumns + " FROM results " + where).c_str());
  if (!st) return out;
  for (size_t i = 0; i < params.size(); ++i) st.bind(int(i + 1), params[i]);
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    CandidateResult r;
    r.key = {st.text(0), st.text(1), st.text(2), st.text(3), st.text(4)};
    r.verification = parseVerification(st.text(5)).value_or(Verification::Failed);
    r.detail = st.text(6);
    r.correct = sqlite3_column_int(st.get(), 7) != 0;
    r.maxError = sqlite3_column_double(st.get(), 8);
    r.seconds = sqlite3_column_double(st.get(), 9);
    r.measured = sqlite3_column_int(st.get(), 10) != 0;
    r.recordedAt = st.text(11);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<CandidateResult> TuningDb::best(const std::string &op, const std::string &shapeKey,
                                              const std::string &templatePath) const {
  // Measured times outrank modelled ones. A sweep's modelled rows (a target
  // this host cannot run) were never checked against the reference, so they
  // are not `correct` and never chosen here.
  auto rows = query("WHERE op = ?1 AND shape_key = ?2 AND verification = 'proved' AND correct = 1 AND seconds > 0 "
                    "AND (?3 = '' OR template = ?3) ORDER BY measured DESC, seconds ASC, parameters ASC LIMIT 1",
                    {op, shapeKey, templatePath});
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::optional<CandidateResult> TuningDb::find(const std::string &op, const std::string &shapeKey,
                                              const std::string &templatePath, const std::string &parameters) const {
  auto rows = query("WHERE op = ?1 AND shape_key = ?2 AND template = ?3 AND parameters = ?4 ORDER BY rowid DESC LIMIT 1",
                    {op, shapeKey, templatePath, parameters});
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<CandidateResult> TuningDb::results() const { return query("ORDER BY rowid", {}); }

std::string TuningDb::storeSource(const std::string &templatePath, const std::string &source) {
  Statement st(db_, "INSERT OR REPLACE INTO kernel_sources (template, source) VALUES (?1, ?2)");
  if (!st) return sqlite3_errmsg(db_);
  st.bind(1, templatePath);
  st.bind(2, source);
  return sqlite3_step(st.get()) == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
}

std::optional<std::string> TuningDb::source(const std::string &templatePath) const {
  Statement st(db_, "SELECT source FROM kernel_sources WHERE template = ?1");
  if (!st) return std::nullopt;
  st.bind(1, templatePath);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
  return st.text(0);
}

std::map<std::string, std::string> TuningDb::sources() const {
  std::map<std::string, std::string> out;
  Statement st(db_, "SELECT template, source FROM kernel_sources ORDER BY template");
  if (!st) return out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) out[st.text(0)] = st.text(1);
  return out;
}

std::string TuningDb::note(const std::string &name) const {
  Statement st(db_, "SELECT value FROM meta WHERE key = ?1");
  if (!st) return "";
  st.bind(1, "note:" + name);
  return sqlite3_step(st.get()) == SQLITE_ROW ? st.text(0) : "";
}

std::string TuningDb::setNote(const std::string &name, const std::string &value) {
  Statement st(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
  if (!st) return sqlite3_errmsg(db_);
  st.bind(1, "note:" + name);
  st.bind(2, value);
  return sqlite3_step(st.get()) == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
}

std::string TuningDb::exportJson() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const CandidateResult &r : results())
    rows.push_back({{"op", r.key.op},
                    {"shape_key", r.key.shapeKey},
                    {"template", r.key.templatePath},
                    {"parameters", r.key.parameters},
                    {"techniques", r.key.techniques},
                    {"verification", verificationName(r.verification)},
                    {"detail", r.detail},
                    {"correct", r.correct},
                    {"max_error", r.maxError},
                    {"seconds", r.seconds},
                    {"measured", r.measured},
                    {"recorded_at", r.recordedAt}});
  nlohmann::json doc = {{"generator_version", identity_.generatorVersion},
                        {"target", identity_.target},
                        {"device", identity_.device},
                        {"kernel_build", identity_.kernelBuild},
                        {"toolchain", identity_.toolchain},
                        {"results", rows},
                        {"kernel_sources", sources()}};
  return doc.dump(2);
}

namespace {

/// "model name" of /proc/cpuinfo, else the machine type.
std::string cpuName() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  utsname u{};
  return uname(&u) == 0 ? u.machine : "unknown CPU";
}

} // namespace

DbIdentity currentIdentity(const std::string &target, const std::string &toolchain, const std::string &homeDir) {
  return {ARGUS_GENERATOR_VERSION, target, cpuName(),
          emit::compileFlagsDigest(emit::kernelCompileFlags(homeDir, target)),
          toolchain + "; SQLite " + sqlite3_libversion()};
}

} // namespace argus::tuning
