//===- Knowledge.cpp - the agent's techniques, as data --------------------===//
#include "argus/Agent/Knowledge.h"

#include "argus/Frontend/Parser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace argus::agent {

const std::vector<std::string> &knownFamilies() {
  static const std::vector<std::string> families = {"gemm", "attention", "moe"};
  return families;
}

const std::vector<std::string> &familyFeatures(const std::string &family) {
  // ELEM: bytes per operand element; THREADS: CPU threads or GPU compute units.
  static const std::map<std::string, std::vector<std::string>> features = {
      {"gemm", {"M", "N", "K", "ELEM", "THREADS"}},
      {"attention", {"SQ", "SKV", "D", "GROUP", "ELEM", "THREADS"}},
      {"moe", {"M", "N", "K", "ELEM", "THREADS"}},
  };
  static const std::vector<std::string> none;
  auto it = features.find(family);
  return it == features.end() ? none : it->second;
}

const std::vector<std::string> &knownFailureClasses() {
  // Besides the verifier's check names: the backends' resource refusals, a
  // template's own assertions, the compiler, and wrong results.
  static const std::vector<std::string> classes = {
      "tag-assertion", "uninitialized-read", "out-of-bounds", "race",          "async-race",
      "double-write",  "unwritten-output",   "bank-conflict", "divergent-barrier", "unsupported",
      "stack-budget",  "lds-budget",         "template-assertion", "compile-error", "incorrect"};
  return classes;
}

std::string classifyFailure(const std::string &detail) {
  if (detail.find("of stack for its tiles") != std::string::npos) return "stack-budget";
  if (detail.find("bytes of LDS") != std::string::npos) return "lds-budget";
  if (detail.find("assertion failed") != std::string::npos) return "template-assertion";
  // Verifier reports: "file:line:col: error: [check-name] message".
  for (const std::string &c : knownFailureClasses())
    if (detail.find("[" + c + "]") != std::string::npos) return c;
  if (detail.find("error:") != std::string::npos) return "compile-error";
  return "";
}

namespace {

double valueOf(const Term &t, const Features &features, const Point &point, bool &known) {
  if (t.name.empty()) return t.factor;
  if (auto it = point.find(t.name); it != point.end()) return t.factor * double(it->second);
  if (auto it = features.find(t.name); it != features.end()) return t.factor * it->second;
  known = false;
  return 0;
}

} // namespace

bool Condition::holds(const Features &features, const Point &point) const {
  bool known = true;
  double l = valueOf(lhs, features, point, known), r = valueOf(rhs, features, point, known);
  if (!known) return false;
  switch (op) {
  case Op::Lt: return l < r;
  case Op::Le: return l <= r;
  case Op::Gt: return l > r;
  case Op::Ge: return l >= r;
  case Op::Eq: return l == r;
  case Op::Ne: return l != r;
  }
  return false;
}

const std::vector<int64_t> *Space::ladder(const std::string &parameter) const {
  for (const auto &[name, values] : parameters)
    if (name == parameter) return &values;
  return nullptr;
}

Features Space::featuresAt(const Features &features, const Point &point) const {
  auto get = [&](const char *name, double fallback) {
    if (auto it = point.find(name); it != point.end()) return double(it->second);
    if (auto it = features.find(name); it != features.end()) return it->second;
    return fallback;
  };
  auto cdiv = [](double a, double b) { return std::ceil(a / std::max(b, 1.0)); };
  Features out = features;
  // Program instances: row tiles x column tiles (query tiles x query heads for
  // attention). A parameter the space does not tune counts as one tile of 128.
  if (family == "attention") out["TILES"] = cdiv(get("SQ", 1), get("BQ", 128)) * get("GROUP", 1);
  else out["TILES"] = cdiv(get("M", 1), get("BM", 128)) * cdiv(get("N", 1), get("BN", 128));
  return out;
}

bool Space::admits(const Features &features, const Point &point) const {
  const Features all = featuresAt(features, point);
  for (const auto &[name, values] : parameters) {
    auto it = point.find(name);
    if (it == point.end() || !std::binary_search(values.begin(), values.end(), it->second)) return false;
  }
  return std::all_of(constraints.begin(), constraints.end(),
                     [&](const Condition &c) { return c.holds(all, point); });
}

bool Space::servesTarget(const std::string &target) const {
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

std::vector<Point> Space::enumerate(const Features &features) const {
  std::vector<Point> out;
  Point p;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == parameters.size()) {
      if (admits(features, p)) out.push_back(p);
      return;
    }
    for (int64_t v : parameters[i].second) {
      p[parameters[i].first] = v;
      walk(i + 1);
    }
  };
  walk(0);
  return out;
}

bool Technique::appliesTo(const Space &space, const Features &features, const Point &point) const {
  const Features all = space.featuresAt(features, point);
  return std::all_of(when.begin(), when.end(), [&](const Condition &c) { return c.holds(all, point); });
}

std::optional<Point> Technique::apply(const Space &space, const Point &point) const {
  Point out = point;
  for (const Move &m : changes) {
    const std::vector<int64_t> *ladder = space.ladder(m.parameter);
    auto at = out.find(m.parameter);
    if (!ladder || at == out.end()) return std::nullopt;
    auto rung = std::lower_bound(ladder->begin(), ladder->end(), at->second);
    switch (m.kind) {
    case Move::Kind::Up:
      // From between two rungs, up is the next rung above.
      if (rung != ladder->end() && *rung == at->second) ++rung;
      if (rung == ladder->end()) return std::nullopt;
      at->second = *rung;
      break;
    case Move::Kind::Down:
      if (rung == ladder->begin()) return std::nullopt;
      at->second = *--rung;
      break;
    case Move::Kind::Set: at->second = m.value; break;
    }
  }
  if (out == point) return std::nullopt;
  return out;
}

const Space *KnowledgeBase::space(const std::string &name) const {
  for (const Space &s : spaces)
    if (s.name == name) return &s;
  return nullptr;
}

const Space *KnowledgeBase::spaceFor(const std::string &family, const std::string &target) const {
  for (const Space &s : spaces)
    if (s.family == family && s.servesTarget(target)) return &s;
  return nullptr;
}

std::vector<const Technique *> KnowledgeBase::techniquesOf(const std::string &space) const {
  std::vector<const Technique *> out;
  for (const Technique &t : techniques)
    if (t.space == space) out.push_back(&t);
  return out;
}

namespace {

/// Reading one file: every error carries "file:line: ".
class Reader {
public:
  Reader(std::string path, std::string homeDir, const KnowledgeBase &earlier)
      : path_(std::move(path)), home_(std::move(homeDir)) {
    for (const Space &s : earlier.spaces) spaces_[s.name] = s;
  }

  std::optional<std::string> read(std::string_view text, KnowledgeBase &into) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::ParserException &e) {
      return path_ + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg;
    }
    if (!root.IsMap()) return at(root, "a knowledge file is a map with 'spaces' and/or 'techniques'");
    for (const auto &kv : root) {
      std::string key = kv.first.as<std::string>();
      if (key != "spaces" && key != "techniques")
        return at(kv.first, "unknown key '" + key + "' (expected 'spaces' or 'techniques')");
      if (!kv.second.IsSequence()) return at(kv.second, "'" + key + "' is a list");
    }
    for (const YAML::Node &n : root["spaces"]) {
      Space s;
      if (auto e = readSpace(n, s)) return e;
      into.spaces.push_back(std::move(s));
    }
    for (const YAML::Node &n : root["techniques"]) {
      Technique t;
      if (auto e = readTechnique(n, t)) return e;
      into.techniques.push_back(std::move(t));
    }
    return std::nullopt;
  }

private:
  /// What a condition in `space` may name.
  static std::set<std::string> namesOf(const Space &space) {
    std::set<std::string> names(familyFeatures(space.family).begin(), familyFeatures(space.family).end());
    names.insert("TILES");
    for (const auto &[p, ladder] : space.parameters) names.insert(p);
    return names;
  }

  std::string at(const YAML::Node &n, const std::string &message) const {
    return path_ + ":" + std::to_string(n.Mark().line + 1) + ": " + message;
  }

  std::optional<std::string> checkKeys(const YAML::Node &n, const std::set<std::string> &allowed,
                                       const std::set<std::string> &required, const std::string &what) const {
    if (!n.IsMap()) return at(n, what + " is a map");
    for (const auto &kv : n) {
      std::string key = kv.first.as<std::string>();
      if (!allowed.count(key)) {
        std::string list;
        for (const std::string &a : allowed) list += (list.empty() ? "" : ", ") + a;
        return at(kv.first, "unknown key '" + key + "' in " + what + " (known: " + list + ")");
      }
    }
    for (const std::string &r : required)
      if (!n[r]) return at(n, what + " lacks '" + r + "'");
    return std::nullopt;
  }

  std::optional<std::string> scalar(const YAML::Node &n, const std::string &what, std::string &out) const {
    if (!n.IsScalar() || n.Scalar().empty()) return at(n, what + " is a non-empty text");
    out = n.Scalar();
    return std::nullopt;
  }

  std::optional<std::string> strings(const YAML::Node &n, const std::string &what,
                                     std::vector<std::string> &out) const {
    if (!n) return std::nullopt;
    if (!n.IsSequence()) return at(n, what + " is a list");
    for (const YAML::Node &item : n) {
      std::string s;
      if (auto e = scalar(item, what + " entry", s)) return e;
      out.push_back(s);
    }
    return std::nullopt;
  }

  /// `[0-9.]*NAME`, `NAME` or a number.
  static bool parseTerm(std::string text, Term &t) {
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    if (text.empty()) return false;
    size_t star = text.find('*');
    std::string number = star == std::string::npos ? "" : text.substr(0, star);
    std::string name = star == std::string::npos ? text : text.substr(star + 1);
    auto isName = [](const std::string &s) {
      return !s.empty() && std::isalpha((unsigned char)s[0]) &&
             std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
    };
    auto parseNumber = [](const std::string &s, double &v) {
      char *end = nullptr;
      v = std::strtod(s.c_str(), &end);
      return !s.empty() && *end == 0 && std::isfinite(v);
    };
    if (star != std::string::npos) {
      if (!parseNumber(number, t.factor) || !isName(name)) return false;
      t.name = name;
      return true;
    }
    if (isName(name)) {
      t.name = name;
      return true;
    }
    return parseNumber(text, t.factor);
  }

  std::optional<std::string> condition(const YAML::Node &n, const std::set<std::string> &names, Condition &c) const {
    std::string text;
    if (auto e = scalar(n, "a condition", text)) return e;
    static const std::pair<const char *, Condition::Op> ops[] = {
        {"<=", Condition::Op::Le}, {">=", Condition::Op::Ge}, {"==", Condition::Op::Eq},
        {"!=", Condition::Op::Ne}, {"<", Condition::Op::Lt},  {">", Condition::Op::Gt}};
    for (const auto &[symbol, op] : ops) {
      size_t pos = text.find(symbol);
      if (pos == std::string::npos) continue;
      c.op = op;
      c.text = text;
      if (!parseTerm(text.substr(0, pos), c.lhs) || !parseTerm(text.substr(pos + std::strlen(symbol)), c.rhs))
        break;
      for (const Term *t : {&c.lhs, &c.rhs})
        if (!t->name.empty() && !names.count(t->name)) {
          std::string list;
          for (const std::string &s : names) list += (list.empty() ? "" : ", ") + s;
          return at(n, "condition '" + text + "' names '" + t->name + "', which is neither a feature nor a " +
                           "parameter here (known: " + list + ")");
        }
      return std::nullopt;
    }
    return at(n, "condition '" + text + "' is not 'TERM OP TERM' (TERM: NAME, NUMBER or NUMBER*NAME; OP: " +
                     "< <= > >= == !=)");
  }

  /// The `const` parameters of the template's kernel function.
  std::optional<std::string> templateConstants(const YAML::Node &n, const std::string &templatePath,
                                               std::set<std::string> &out) const {
    fs::path file = fs::path(home_) / templatePath;
    std::ifstream in(file);
    if (!in) return at(n, "template '" + templatePath + "' cannot be read (" + file.string() + ")");
    std::stringstream ss;
    ss << in.rdbuf();
    dsl::ParseOutput parsed = dsl::parseModule(ss.str(), file.string());
    if (!parsed.module) return at(n, "template '" + templatePath + "' does not parse: " + parsed.errors[0].message);
    for (const dsl::StmtPtr &s : parsed.module->body)
      if (const auto *f = s->as<dsl::FunctionDef>())
        for (const dsl::Param &p : f->params)
          if (const auto *a = p.annotation ? p.annotation->as<dsl::NameExpr>() : nullptr; a && a->name == "const")
            out.insert(p.name);
    return std::nullopt;
  }

  std::optional<std::string> readSpace(const YAML::Node &n, Space &s) {
    if (auto e = checkKeys(n, {"name", "family", "template", "targets", "parameters", "constraints", "note"},
                           {"name", "family", "template", "targets", "parameters", "note"}, "a space"))
      return e;
    s.file = path_;
    s.line = n.Mark().line + 1;
    if (auto e = scalar(n["name"], "a space's name", s.name)) return e;
    if (auto e = scalar(n["family"], "a space's family", s.family)) return e;
    const auto &families = knownFamilies();
    if (std::find(families.begin(), families.end(), s.family) == families.end())
      return at(n["family"], "space '" + s.name + "': unknown family '" + s.family + "' (known: gemm, attention, moe)");
    if (auto e = scalar(n["template"], "a space's template", s.templatePath)) return e;
    if (auto e = scalar(n["note"], "a space's note", s.note)) return e;
    if (auto e = strings(n["targets"], "targets", s.targets)) return e;
    if (s.targets.empty()) return at(n["targets"], "space '" + s.name + "' serves no target");
    for (const std::string &t : s.targets)
      if (t.rfind("cpu-", 0) && t.rfind("cuda-", 0) && t.rfind("hip-", 0))
        return at(n["targets"], "space '" + s.name + "': target '" + t + "' is not cpu-*, cuda-* or hip-*");
    std::set<std::string> declared;
    if (!home_.empty())
      if (auto e = templateConstants(n["template"], s.templatePath, declared)) return e;
    const YAML::Node &params = n["parameters"];
    if (!params.IsMap() || params.size() == 0) return at(params, "space '" + s.name + "': parameters is a non-empty map");
    for (const auto &kv : params) {
      std::string name = kv.first.as<std::string>();
      if (!home_.empty() && !declared.count(name))
        return at(kv.first, "space '" + s.name + "': template '" + s.templatePath + "' has no const parameter '" +
                                name + "'");
      std::vector<int64_t> ladder;
      if (!kv.second.IsSequence() || kv.second.size() == 0)
        return at(kv.second, "space '" + s.name + "': the ladder of " + name + " is a non-empty list of integers");
      for (const YAML::Node &v : kv.second) {
        long long value = 0;
        if (!v.IsScalar() || !YAML::convert<long long>::decode(v, value) || value <= 0)
          return at(v, "space '" + s.name + "': " + name + " takes positive integers, not '" + v.Scalar() + "'");
        ladder.push_back(value);
      }
      if (!std::is_sorted(ladder.begin(), ladder.end()) ||
          std::adjacent_find(ladder.begin(), ladder.end()) != ladder.end())
        return at(kv.second, "space '" + s.name + "': the ladder of " + name + " must rise strictly");
      s.parameters.emplace_back(name, std::move(ladder));
    }
    std::set<std::string> names = namesOf(s);
    for (const auto &[p, ladder] : s.parameters) names.insert(p);
    if (const YAML::Node &cs = n["constraints"]) {
      if (!cs.IsSequence()) return at(cs, "constraints is a list");
      for (const YAML::Node &c : cs) {
        Condition cond;
        if (auto e = condition(c, names, cond)) return e;
        s.constraints.push_back(std::move(cond));
      }
    }
    spaces_[s.name] = s;
    return std::nullopt;
  }

  std::optional<std::string> readTechnique(const YAML::Node &n, Technique &t) const {
    if (auto e = checkKeys(n, {"name", "space", "when", "changes", "keeps", "repairs", "note"},
                           {"name", "space", "changes", "keeps", "note"}, "a technique"))
      return e;
    t.file = path_;
    t.line = n.Mark().line + 1;
    if (auto e = scalar(n["name"], "a technique's name", t.name)) return e;
    if (auto e = scalar(n["space"], "a technique's space", t.space)) return e;
    if (auto e = scalar(n["note"], "a technique's note", t.note)) return e;
    // The space may be in another file: its parameters are checked then by
    // checkKnowledge; here only when it is known already.
    auto known = spaces_.find(t.space);
    std::set<std::string> names;
    if (known != spaces_.end()) names = namesOf(known->second);
    if (const YAML::Node &w = n["when"]) {
      if (!w.IsSequence()) return at(w, "technique '" + t.name + "': when is a list of conditions");
      for (const YAML::Node &c : w) {
        Condition cond;
        if (known == spaces_.end())
          return at(c, "technique '" + t.name + "': space '" + t.space + "' must be defined before its techniques");
        if (auto e = condition(c, names, cond)) return e;
        t.when.push_back(std::move(cond));
      }
    }
    const YAML::Node &ch = n["changes"];
    if (!ch.IsMap() || ch.size() == 0)
      return at(ch, "technique '" + t.name + "': changes is a non-empty map PARAMETER: up | down | VALUE");
    for (const auto &kv : ch) {
      Move m;
      m.parameter = kv.first.as<std::string>();
      if (known != spaces_.end() && !known->second.ladder(m.parameter))
        return at(kv.first, "technique '" + t.name + "' changes '" + m.parameter + "', which space '" + t.space +
                                "' does not tune");
      std::string how = kv.second.IsScalar() ? kv.second.Scalar() : "";
      long long value = 0;
      if (how == "up") m.kind = Move::Kind::Up;
      else if (how == "down") m.kind = Move::Kind::Down;
      else if (YAML::convert<long long>::decode(kv.second, value) && value > 0) {
        m.kind = Move::Kind::Set;
        m.value = value;
      } else
        return at(kv.second, "technique '" + t.name + "': a change is up, down or a positive integer, not '" + how +
                                 "'");
      t.changes.push_back(m);
    }
    const auto &classes = knownFailureClasses();
    auto checkClass = [&](const YAML::Node &list, const std::vector<std::string> &values, bool checksOnly)
        -> std::optional<std::string> {
      for (const std::string &v : values) {
        auto it = std::find(classes.begin(), classes.end(), v);
        // The verifier's checks are the first ten classes.
        if (it == classes.end() || (checksOnly && it - classes.begin() >= 10))
          return at(list, "technique '" + t.name + "': '" + v + "' is not " +
                              (checksOnly ? "a verifier check" : "a failure class"));
      }
      return std::nullopt;
    };
    if (auto e = strings(n["keeps"], "keeps", t.keeps)) return e;
    if (t.keeps.empty()) return at(n["keeps"], "technique '" + t.name + "' keeps no verifier check");
    if (auto e = checkClass(n["keeps"], t.keeps, true)) return e;
    if (auto e = strings(n["repairs"], "repairs", t.repairs)) return e;
    if (auto e = checkClass(n["repairs"], t.repairs, false)) return e;
    return std::nullopt;
  }

  std::string path_, home_;
  std::map<std::string, Space> spaces_;
};

} // namespace

std::optional<std::string> parseKnowledge(std::string_view text, const std::string &path, const std::string &homeDir,
                                          KnowledgeBase &into) {
  KnowledgeBase local = into; // a failed file leaves `into` as it was
  Reader reader(path, homeDir, into);
  if (auto e = reader.read(text, local)) return e;
  into = std::move(local);
  return std::nullopt;
}

std::optional<std::string> checkKnowledge(const KnowledgeBase &kb) {
  std::map<std::string, const Space *> spaces;
  for (const Space &s : kb.spaces)
    if (!spaces.emplace(s.name, &s).second)
      return s.file + ":" + std::to_string(s.line) + ": space '" + s.name + "' is defined twice";
  std::set<std::string> names;
  for (const Technique &t : kb.techniques) {
    std::string where = t.file + ":" + std::to_string(t.line) + ": ";
    if (!names.insert(t.name).second) return where + "technique '" + t.name + "' is defined twice";
    if (!spaces.count(t.space)) return where + "technique '" + t.name + "' names an unknown space '" + t.space + "'";
  }
  for (const Space &s : kb.spaces)
    if (kb.techniquesOf(s.name).empty())
      return s.file + ":" + std::to_string(s.line) + ": space '" + s.name + "' has no technique to move in it";
  return std::nullopt;
}

std::variant<KnowledgeBase, std::string> loadKnowledgeBase(const std::string &dir, const std::string &homeDir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") files.push_back(it->path());
  if (ec) return "cannot read the knowledge base '" + dir + "': " + ec.message();
  if (files.empty()) return "the knowledge base '" + dir + "' has no .yaml file";
  std::sort(files.begin(), files.end());
  KnowledgeBase kb;
  for (const fs::path &f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return "cannot read '" + f.string() + "'";
    if (auto e = parseKnowledge(text.str(), f.string(), homeDir, kb)) return *e;
  }
  if (auto e = checkKnowledge(kb)) return *e;
  return kb;
}

} // namespace argus::agent
