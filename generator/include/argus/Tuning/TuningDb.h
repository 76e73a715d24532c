//===- TuningDb.h - the sweep's results, kept in SQLite ----------*- C++ -*-===//
//
// Every candidate a sweep tries (one kernel template with its parameters and
// techniques, for one op configuration and shape bucket) ends as one row:
// whether the verifier proved it, its largest error against the float64
// reference, and its time, measured or modelled. Each row is committed in its
// own transaction (WAL journal), so a sweep killed at any moment keeps every
// result it reported and, started again, skips them (`contains`).
//
// A database belongs to one generator version, target and device: results
// from another are not comparable, so `open` refuses them with a message
// that names both sides, unless asked to discard them (`retune`).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TUNING_TUNINGDB_H
#define ARGUS_TUNING_TUNINGDB_H

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

struct sqlite3;

namespace argus::tuning {

/// What the results of a database are valid for. Toolchain versions are
/// recorded for the reader; they do not make a database unusable.
struct DbIdentity {
  std::string generatorVersion; // argus-gen's version
  std::string target;           // e.g. cpu-avx512
  std::string device;           // e.g. the CPU model name
  std::string kernelBuild;      // digest of the kernels' compile flags and runtime headers (emit::compileFlagsDigest)
  std::string toolchain;        // e.g. "g++ 12.2.0; MLIR 22"
};

/// Identifies one candidate within a sweep.
struct CandidateKey {
  std::string op;           // catalog op (or "fallback"), e.g. "qkv"
  std::string shapeKey;     // the configuration and bucket, e.g. "gemm bf16 n6144 k4096 m<=16"
  std::string templatePath; // e.g. templates/gemm/gemm_tn.argus
  std::string parameters;   // canonical "name=value" list, e.g. "BK=512,BM=16,BN=64"
  std::string techniques;   // comma list, empty for none
};

/// How a candidate fared.
enum class Verification { Proved, Refuted, Failed };

struct CandidateResult {
  CandidateKey key;
  Verification verification = Verification::Failed;
  std::string detail;        // counterexample or error; empty when proved and correct
  bool correct = false;      // matched the reference within the dtype's tolerance
  double maxError = 0;       // largest error against the reference
  double seconds = 0;        // time of one call; 0 when not timed
  bool measured = false;     // false: the time is the cost model's
  std::string recordedAt;    // UTC, set by the database
};

const char *verificationName(Verification v);

class TuningDb {
public:
  /// Opens (creating if needed) the database at `path` for `identity`. A
  /// database made for another generator version, target or device is
  /// refused unless `retune`, which drops its results and adopts `identity`.
  static std::variant<std::unique_ptr<TuningDb>, std::string> open(const std::string &path, const DbIdentity &identity,
                                                                   bool retune);
  /// Opens an existing database as it is, whatever made it (for reading:
  /// `argus-gen db`).
  static std::variant<std::unique_ptr<TuningDb>, std::string> openExisting(const std::string &path);
  ~TuningDb();
  TuningDb(const TuningDb &) = delete;
  TuningDb &operator=(const TuningDb &) = delete;

  const DbIdentity &identity() const { return identity_; }

  /// Whether this candidate already has a result (a resumed sweep skips it).
  bool contains(const CandidateKey &key) const;

  /// Commits one result in its own transaction; a second result for the same
  /// candidate replaces the first. "" on success, else SQLite's message.
  std::string record(const CandidateResult &result);

  /// The fastest proved, correct candidate of an op configuration (of one
  /// template, unless `templatePath` is empty).
  std::optional<CandidateResult> best(const std::string &op, const std::string &shapeKey,
                                      const std::string &templatePath = "") const;

  /// The latest result of these parameters at this configuration, whatever
  /// techniques reached them.
  std::optional<CandidateResult> find(const std::string &op, const std::string &shapeKey,
                                      const std::string &templatePath, const std::string &parameters) const;

  /// Every result, in the order they were recorded.
  std::vector<CandidateResult> results() const;

  /// Kernels that are not files of the Argus tree (the LLM's), kept by the
  /// template path their results name ("llm/<hash>.argus"). storeSource
  /// returns "" or SQLite's message; source is nullopt when absent.
  std::string storeSource(const std::string &templatePath, const std::string &source);
  std::optional<std::string> source(const std::string &templatePath) const;
  std::map<std::string, std::string> sources() const;

  /// Free-form facts measured with the results (e.g. the machine's roofs),
  /// kept until the results are discarded (`retune`). "" when absent.
  std::string note(const std::string &name) const;
  std::string setNote(const std::string &name, const std::string &value);

  /// The identity and every result as JSON (`argus-gen db export`).
  std::string exportJson() const;

private:
  TuningDb(sqlite3 *db, DbIdentity identity) : db_(db), identity_(std::move(identity)) {}
  /// The results selected by `where` (a WHERE / ORDER BY tail), ?N bound to params.
  std::vector<CandidateResult> query(const char *where, const std::vector<std::string> &params) const;

  sqlite3 *db_;
  DbIdentity identity_;
};

/// This argus-gen's version and this machine's CPU, for `target` and the
/// given toolchain description.
/// This host's identity for `target`'s kernels, built from the runtime of
/// the Argus tree at `homeDir`.
DbIdentity currentIdentity(const std::string &target, const std::string &toolchain, const std::string &homeDir);

} // namespace argus::tuning

#endif // ARGUS_TUNING_TUNINGDB_H
