//===- Knowledge.h - the agent's techniques, as data ------------*- C++ -*-===//
//
// The knowledge base (templates/knowledge/*.yaml) is what the agent may do
// to a kernel, written down so that people and the planner read the same
// thing. It has two parts:
//
//  - search spaces: a kernel template, the targets it serves and, for each of
//    its tunable parameters, the ladder of values worth trying, plus the
//    conditions every candidate must meet (e.g. "BM <= 2*M");
//  - techniques: a named change to a space's parameters ("BK: up" moves BK
//    one rung up its ladder), when it applies (conditions over the
//    configuration's features and the candidate's parameters), the verifier
//    checks it must keep, the failures it repairs and a prose note.
//
// Everything is checked on load: unknown keys, features, parameters, check
// names and failure classes, empty ladders, and templates that do not declare
// the parameters a space tunes. An error names the file and line.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_KNOWLEDGE_H
#define ARGUS_AGENT_KNOWLEDGE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace argus::agent {

/// A candidate's tunable parameters: template constant → value.
using Point = std::map<std::string, int64_t>;
/// What describes an op configuration: M, N, K, THREADS, ... → value.
using Features = std::map<std::string, double>;

/// The kernel families a space can belong to, and the features each has.
/// Conditions may also name TILES, the program instances of the candidate
/// (derived: Space::featuresAt).
const std::vector<std::string> &knownFamilies();
const std::vector<std::string> &familyFeatures(const std::string &family);

/// `factor * name`, or a bare number when `name` is empty.
struct Term {
  double factor = 1;
  std::string name;
};

/// `lhs op rhs` over features and parameters, e.g. "M >= 2*BM".
struct Condition {
  enum class Op { Lt, Le, Gt, Ge, Eq, Ne };
  Term lhs, rhs;
  Op op = Op::Le;
  std::string text;
  /// Whether it holds; false when a name is neither a feature nor a parameter.
  bool holds(const Features &features, const Point &point) const;
};

/// Why a candidate failed, as techniques name it in `repairs`: a verifier
/// check name (`out-of-bounds`, `race`, ...) or one of these.
const std::vector<std::string> &knownFailureClasses();

struct Move {
  enum class Kind { Up, Down, Set };
  std::string parameter;
  Kind kind = Kind::Up;
  int64_t value = 0; // Set only
};

struct Space {
  std::string name, family, templatePath, note;
  std::vector<std::string> targets;
  std::vector<std::pair<std::string, std::vector<int64_t>>> parameters; // ladders, ascending
  std::vector<Condition> constraints;
  std::string file;
  int line = 0;

  const std::vector<int64_t> *ladder(const std::string &parameter) const;
  /// `features` plus those derived from the candidate (TILES).
  Features featuresAt(const Features &features, const Point &point) const;
  bool admits(const Features &features, const Point &point) const;
  bool servesTarget(const std::string &target) const;
  /// Every point of the ladders' product that meets the constraints, in
  /// lexicographic order of the parameters.
  std::vector<Point> enumerate(const Features &features) const;
};

struct Technique {
  std::string name, space, note;
  std::vector<Condition> when;
  std::vector<Move> changes;
  std::vector<std::string> keeps;   // verifier checks the changed kernel must still pass
  std::vector<std::string> repairs; // failure classes it is a repair for
  std::string file;
  int line = 0;

  bool appliesTo(const Space &space, const Features &features, const Point &point) const;
  /// The point after the change; nullopt where a ladder ends or nothing moves.
  std::optional<Point> apply(const Space &space, const Point &point) const;
};

struct KnowledgeBase {
  std::vector<Space> spaces;
  std::vector<Technique> techniques;

  const Space *space(const std::string &name) const;
  const Space *spaceFor(const std::string &family, const std::string &target) const;
  std::vector<const Technique *> techniquesOf(const std::string &space) const;
};

/// Parses one knowledge file's text. Templates are read from `homeDir` to
/// check the parameters they declare; an empty `homeDir` skips that check.
std::optional<std::string> parseKnowledge(std::string_view text, const std::string &path,
                                          const std::string &homeDir, KnowledgeBase &into);

/// Checks a whole knowledge base: space and technique names unique, every
/// technique's space defined, every space with a technique.
std::optional<std::string> checkKnowledge(const KnowledgeBase &kb);

/// Loads every `*.yaml` of `dir` (sorted by name) and checks the whole: names
/// unique, each technique's space defined.
std::variant<KnowledgeBase, std::string> loadKnowledgeBase(const std::string &dir, const std::string &homeDir);

/// The failure class of a candidate's detail text (a verifier report or an
/// error), "" when none is recognised.
std::string classifyFailure(const std::string &detail);

} // namespace argus::agent

#endif // ARGUS_AGENT_KNOWLEDGE_H
