//===- Finding.h - what the verifier reports about one kernel ---*- C++ -*-===//
//
// A Finding is one property the verifier could not prove, with the concrete
// counterexample Z3 produced: the thread (block, warp, lane), the data element
// (tensor or buffer and coordinates), the program point (file:line:col of the
// DSL and the loop iteration values) and, for tag assertions, the expected and
// actual tags. The same record is printed for people (formatFinding) and
// serialised for the agent (findingToJson); both are produced from here only.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_VERIFY_FINDING_H
#define ARGUS_VERIFY_FINDING_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace argus::verify {

/// The property a finding is about. Each is switchable (VerifyOptions).
enum class CheckKind {
  TagAssertion,     // an argus.assert_tag predicate is false, or an operand has no tag
  UninitializedRead, // a buffer slot is read before any write reaches it
  OutOfBounds,      // buffer slot index outside the buffer, unmasked global access outside the tensor
  Race,             // two threads touch one slot in one barrier interval, one of them writing
  AsyncRace,        // a slot is touched while an async copy into it is still in flight
  DoubleWrite,      // an output element is written by two store instances
  UnwrittenOutput,  // an output element no store instance writes
  BankConflict,     // lanes of one warp hit one shared-memory bank at different words
  DivergentBarrier, // some threads of an instance reach a barrier that others skip
  Unsupported,      // the kernel uses something the verifier cannot model (never a silent pass)
};

/// Stable kebab-case name ("tag-assertion", "race", ...), used in JSON and tests.
const char *checkName(CheckKind kind);
/// Inverse of checkName; nullopt for an unknown name.
std::optional<CheckKind> checkFromName(const std::string &name);

enum class Severity { Error, Warning };

/// Where in the kernel: the DSL location and the loop iteration values.
struct ProgramPoint {
  std::string location;                                  // "gemm.argus:12:9"
  std::string op;                                        // "argus.buffer_load"
  std::vector<std::pair<std::string, int64_t>> iterations; // outermost first: ("kt", 3)
};

/// One side of a counterexample: who executes what, where.
struct Access {
  std::vector<int64_t> block;   // program id per grid axis (3 entries)
  int64_t thread = 0;           // thread id inside the program instance
  int64_t warp = 0, lane = 0;   // thread / 32, thread % 32
  ProgramPoint point;
  std::string target;           // tensor or buffer name: "A", "sa (shared buffer at f.argus:9:5)"
  std::vector<int64_t> slot;    // buffer slot indices (empty for global tensors)
  std::vector<int64_t> element; // coordinates of the element inside the tile / tensor
  bool write = false;
  bool async = false;
};

/// A tag as the verifier saw it: unwritten (⊥), a tuple, untagged (a computed
/// value), or unknown (⊤: conflicting or older than the loop window).
struct TagValue {
  enum class State { Unwritten, Tagged, Untagged, Unknown } state = State::Unwritten;
  std::string origin;                                   // the tag function: "A", "B"
  std::vector<std::pair<std::string, int64_t>> fields;  // ("m", 3), ("k", 70)
};
std::string formatTag(const TagValue &tag);

/// What replaying the counterexample in the interpreter showed.
struct Replay {
  enum class Status { NotRun, Confirmed, NotConfirmed, Failed } status = Status::NotRun;
  std::string detail; // what was observed, or why the replay could not confirm
};

struct Finding {
  CheckKind kind = CheckKind::TagAssertion;
  Severity severity = Severity::Error;
  std::string message;                           // one line: what is wrong
  std::vector<Access> accesses;                  // one or two (races, double writes)
  std::vector<std::pair<std::string, int64_t>> sizes; // symbolic sizes and scalars: ("M", 17)
  std::vector<TagValue> actualTags;              // tag assertions: one per operand
  std::string expected;                          // the predicate or property that should hold
  Replay replay;
};

/// The DSL source line at "file:line:col", trimmed; empty when unreadable.
std::string sourceLineAt(const std::string &location);

/// Multi-line readable report of one finding.
std::string formatFinding(const Finding &finding);
/// The same finding as a JSON object (a string), for the agent.
std::string findingToJson(const Finding &finding);

} // namespace argus::verify

#endif // ARGUS_VERIFY_FINDING_H
