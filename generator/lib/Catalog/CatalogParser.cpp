//===- CatalogParser.cpp - reading catalog YAML ---------------------------===//
//
// Turns YAML text into a RawCatalog, checking syntax, keys and types only:
// every key must be in the schema (else "did you mean"), appear once, and hold
// the right kind of node (an integer is a plain scalar of digits: "4096" in
// quotes, 4096.0, true or a list are not integers). Values are checked by
// buildCatalog() (CatalogBuilder.cpp), which the HF importer shares.
//
// yaml-cpp marks are 0-based; CatalogError positions are 1-based. A null value
// (`hidden_size:` with nothing after it) is reported at its key, because
// yaml-cpp places empty nodes at the start of the next token.
//
//===----------------------------------------------------------------------===//
#include "CatalogParser.h"
#include "RawCatalog.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace argus::catalog {
namespace detail {
namespace {

constexpr std::string_view kTopLevelExpected = "model, dtype, architecture, serving";

/// Reads one catalog (or serving profile) document into a RawCatalog.
class YamlReader {
public:
  YamlReader(std::string file, RawCatalog &raw, bool isProfile)
      : file_(std::move(file)), raw_(raw), isProfile_(isProfile) {}

  std::optional<CatalogError> readDocument(const YAML::Node &root) {
    Loc rootLoc = locOf(root, nullptr);
    if (rootLoc.line == 0) rootLoc = Loc{file_, 1, 1};
    raw_.locs[""] = rootLoc;
    if (!root.IsMap())
      return makeError(rootLoc, "",
                       std::string(isProfile_ ? "a serving profile" : "a catalog") +
                           " must be a mapping with keys " +
                           std::string(isProfile_ ? "model, dtype, serving" : kTopLevelExpected) +
                           "; found " + describe(root));
    return readMapping(root, "");
  }

private:
  Loc locOf(const YAML::Node &node, const YAML::Node *key) const {
    const YAML::Node &at = (key && (!node.IsDefined() || node.IsNull())) ? *key : node;
    YAML::Mark m = at.Mark();
    if (m.is_null() || m.line < 0) return Loc{file_, 0, 0};
    return Loc{file_, m.line + 1, m.column + 1};
  }

  static std::string describe(const YAML::Node &node) {
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return "no value";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: break;
    }
    std::string text = node.Scalar();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    if (node.Tag() == "!") return "the quoted string \"" + text + "\"";
    return "'" + text + "'";
  }

  std::optional<CatalogError> readMapping(const YAML::Node &map, std::string_view section) {
    std::vector<std::string_view> known = keysOfSection(section);
    if (isProfile_ && section.empty())
      known.erase(std::remove(known.begin(), known.end(), "architecture"), known.end());
    std::map<std::string, int> firstLine;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node &keyNode = it->first;
      const YAML::Node &value = it->second;
      Loc keyLoc = locOf(keyNode, nullptr);
      std::string where = section.empty() ? "at top level" : "in " + std::string(section);
      if (!keyNode.IsScalar())
        return makeError(keyLoc, std::string(section),
                         "keys must be plain names; found " + describe(keyNode) + " as a key " + where);
      const std::string name = keyNode.Scalar();
      const std::string path = dottedPath(section, name);
      if (auto [pos, inserted] = firstLine.emplace(name, keyLoc.line); !inserted)
        return makeError(keyLoc, path,
                         "duplicate key '" + name + "' " + where + " (first at line " +
                             std::to_string(pos->second) + ")");
      if (std::find(known.begin(), known.end(), name) == known.end())
        return unknownKey(keyLoc, section, name, known);

      const FieldSpec &spec = specOf(section, name);
      Loc valueLoc = locOf(value, &keyNode);
      // A section is reported at its key ("architecture:"), which is where a
      // reader looks for a key missing from it; a value at the value.
      raw_.locs[path] = spec.type == FieldType::Section ? keyLoc : valueLoc;
      switch (spec.type) {
      case FieldType::Section:
        if (!value.IsMap())
          return makeError(valueLoc, path, path + " must be a mapping; found " + describe(value));
        if (auto err = readMapping(value, name)) return err;
        break;
      case FieldType::String:
        if (!value.IsScalar())
          return makeError(valueLoc, path, path + " must be a string; found " + describe(value));
        raw_.strings[path] = value.Scalar();
        break;
      case FieldType::Int: {
        int64_t v = 0;
        if (auto err = readInt(value, valueLoc, path, path, v)) return err;
        raw_.ints[path] = v;
        break;
      }
      case FieldType::IntList: {
        if (!value.IsSequence())
          return makeError(valueLoc, path,
                           path + " must be a list of integers; found " + describe(value));
        std::vector<int64_t> list;
        for (size_t i = 0; i < value.size(); ++i) {
          const YAML::Node element = value[i];
          Loc elementLoc = locOf(element, nullptr);
          if (elementLoc.line == 0) elementLoc = valueLoc;
          std::string elementPath = path + "[" + std::to_string(i) + "]";
          raw_.locs[elementPath] = elementLoc;
          int64_t v = 0;
          if (auto err = readInt(element, elementLoc, path, elementPath, v)) return err;
          list.push_back(v);
        }
        raw_.lists[path] = std::move(list);
        break;
      }
      }
    }
    return std::nullopt;
  }

  CatalogError unknownKey(const Loc &loc, std::string_view section, const std::string &name,
                          const std::vector<std::string_view> &known) const {
    std::string message = "unknown key '" + name + "' " +
                          (section.empty() ? std::string("at top level")
                                           : "in " + std::string(section));
    std::optional<std::string_view> home = sectionOfKey(name);
    if (isProfile_ && name == "architecture")
      message += " (a serving profile takes the architecture from config.json)";
    else if (home && *home != section)
      message += home->empty() ? " (it is a top-level key)"
                               : " (it belongs in " + std::string(*home) + ")";
    else if (std::string_view guess = closestMatch(name, known); !guess.empty())
      message += " (did you mean '" + std::string(guess) + "'?)";
    else {
      message += "; expected one of ";
      for (size_t i = 0; i < known.size(); ++i)
        message += (i ? ", " : "") + std::string(known[i]);
    }
    return makeError(loc, dottedPath(section, name), message);
  }

  /// A plain scalar of decimal digits with an optional '-', in int64 range.
  static std::optional<CatalogError> readInt(const YAML::Node &node, const Loc &loc,
                                             const std::string &key, const std::string &what,
                                             int64_t &out) {
    auto fail = [&](std::string found) {
      return makeError(loc, key, what + " must be an integer; found " + std::move(found));
    };
    if (!node.IsScalar() || node.Tag() == "!") return fail(describe(node));
    const std::string &text = node.Scalar();
    size_t digitsFrom = (!text.empty() && text[0] == '-') ? 1 : 0;
    bool digits = text.size() > digitsFrom &&
                  text.find_first_not_of("0123456789", digitsFrom) == std::string::npos;
    if (!digits) return fail(describe(node));
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || end != text.data() + text.size())
      return makeError(loc, key, what + " = " + text + " is out of range");
    return std::nullopt;
  }

  static const FieldSpec &specOf(std::string_view section, std::string_view name) {
    for (const FieldSpec &f : catalogSchema())
      if (f.section == section && f.name == name) return f;
    static const FieldSpec none{"", "", FieldType::String};
    return none; // unreachable: callers check the key is known
  }

  std::string file_;
  RawCatalog &raw_;
  bool isProfile_;
};

} // namespace

namespace {

/// Counts documents and where each starts, without building nodes. yaml-cpp
/// 0.7's LoadAll() never returns on a stray ',' before the first node (the
/// parser yields empty documents forever without consuming it), so we drive
/// the parser ourselves, stop after a few documents, and notice when a
/// "document" did not advance.
class DocumentCounter : public YAML::EventHandler {
public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark &mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark &, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t,
                const std::string &) override {}
  void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// The first character that is not blank, not in a comment, not a directive
/// or document marker line: where a stray token sits.
Loc firstSignificantChar(std::string_view text, const std::string &file) {
  int line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view l = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
    size_t first = l.find_first_not_of(" \t\r");
    bool skip = first == l.npos || l[first] == '#' || l[first] == '%' ||
                l.substr(first, 3) == "---" || l.substr(first, 3) == "...";
    if (!skip) return Loc{file, line, static_cast<int>(first) + 1};
    if (end == std::string_view::npos) break;
    pos = end + 1;
    ++line;
  }
  return Loc{file, 1, 1};
}

Loc locOfMark(const YAML::Mark &m, const std::string &file) {
  if (m.is_null() || m.line < 0) return Loc{file, 0, 0};
  return Loc{file, m.line + 1, m.column + 1};
}

} // namespace

std::optional<CatalogError> readYaml(std::string_view text, std::string_view path,
                                     RawCatalog &raw, bool isProfile) {
  const std::string file(path);
  const char *what = isProfile ? "serving profile" : "catalog";
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentCounter counter;
    for (int docs = 0; docs < 2 && parser.HandleNextDocument(counter); ++docs) {
    }
    if (counter.starts.empty())
      return makeError(Loc{file, 1, 1}, "",
                       std::string("the ") + what + " is empty; expected a mapping with keys " +
                           std::string(isProfile ? "model, dtype, serving" : kTopLevelExpected));
    if (counter.starts.size() > 1) {
      const YAML::Mark &first = counter.starts[0], &second = counter.starts[1];
      if (first.pos == second.pos)
        return makeError(firstSignificantChar(text, file), "",
                         "invalid YAML: unexpected token before the first key");
      return makeError(locOfMark(second, file), "",
                       std::string("a ") + what +
                           " is one YAML document; found a second one (a '---' line)");
    }
    return YamlReader(file, raw, isProfile).readDocument(YAML::Load(std::string(text)));
  } catch (const YAML::Exception &e) {
    return makeError(locOfMark(e.mark, file), "", "invalid YAML: " + e.msg);
  } catch (const std::exception &e) {
    return makeError(Loc{file, 0, 0}, "", std::string("cannot read ") + what + ": " + e.what());
  }
}

std::optional<CatalogError> readTextFile(const std::string &path, std::string &out) {
  constexpr std::uintmax_t kMaxBytes = 16u << 20;
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    return makeError(Loc{path, 0, 0}, "", "cannot read file: no such file");
  if (ec) return makeError(Loc{path, 0, 0}, "", "cannot read file: " + ec.message());
  if (!std::filesystem::is_regular_file(status))
    return makeError(Loc{path, 0, 0}, "", "cannot read file: not a regular file");
  if (std::filesystem::file_size(path, ec) > kMaxBytes)
    return makeError(Loc{path, 0, 0}, "", "cannot read file: larger than 16 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(Loc{path, 0, 0}, "", std::string("cannot read file: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return makeError(Loc{path, 0, 0}, "", "cannot read file: I/O error");
  out = buffer.str();
  return std::nullopt;
}

} // namespace detail

Result<Catalog> parseCatalog(std::string_view yamlText, std::string_view path) {
  detail::RawCatalog raw;
  raw.path = std::string(path);
  if (auto err = detail::readYaml(yamlText, path, raw, /*isProfile=*/false)) return *err;
  return detail::buildCatalog(raw);
}

Result<Catalog> loadCatalog(const std::string &path) {
  std::string text;
  if (auto err = detail::readTextFile(path, text)) return *err;
  return parseCatalog(text, path);
}

} // namespace argus::catalog
