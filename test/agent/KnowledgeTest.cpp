//===- KnowledgeTest.cpp - the knowledge base's loader and its checks -----===//
#include "argus/Agent/Knowledge.h"

#include <gtest/gtest.h>

#include <set>

using namespace argus::agent;

namespace {

const std::string kHome = ARGUS_SOURCE_DIR;

/// A one-space knowledge text; `techniques` is appended under `techniques:`.
std::string withSpace(const std::string &techniques, const std::string &space = "") {
  return std::string("spaces:\n") +
         (space.empty() ? "  - name: s\n"
                          "    family: gemm\n"
                          "    template: templates/gemm/gemm_tn.argus\n"
                          "    targets: [cpu-avx2]\n"
                          "    parameters: {BM: [1, 2, 4, 8], BN: [16, 32], BK: [32, 64, 128]}\n"
                          "    constraints: [\"BM <= 2*M\"]\n"
                          "    note: a space\n"
                        : space) +
         "techniques:" + (techniques.empty() ? std::string(" []\n") : "\n" + techniques);
}

const char *kRowTechnique = "  - name: rows\n"
                            "    space: s\n"
                            "    when: [\"M >= 2*BM\"]\n"
                            "    changes: {BM: up}\n"
                            "    keeps: [out-of-bounds]\n"
                            "    repairs: [stack-budget]\n"
                            "    note: more rows\n";

std::string errorOf(const std::string &text, const std::string &home = kHome) {
  KnowledgeBase kb;
  auto e = parseKnowledge(text, "kb.yaml", home, kb);
  return e ? *e : "";
}

} // namespace

TEST(Knowledge, ShippedBaseLoadsAndCoversFamiliesAndTargets) {
  auto loaded = loadKnowledgeBase(kHome + "/templates/knowledge", kHome);
  ASSERT_TRUE(std::holds_alternative<KnowledgeBase>(loaded)) << std::get<std::string>(loaded);
  const KnowledgeBase &kb = std::get<KnowledgeBase>(loaded);
  EXPECT_GE(kb.techniques.size(), 15u);
  std::set<std::string> families, targetKinds;
  for (const Space &s : kb.spaces) {
    families.insert(s.family);
    for (const std::string &t : s.targets) targetKinds.insert(t.substr(0, t.find('-')));
  }
  EXPECT_EQ(families, (std::set<std::string>{"attention", "gemm", "moe"}));
  EXPECT_EQ(targetKinds, (std::set<std::string>{"cpu", "cuda", "hip"}));
  for (const Technique &t : kb.techniques) {
    EXPECT_FALSE(t.note.empty()) << t.name;
    EXPECT_FALSE(t.keeps.empty()) << t.name;
  }
  ASSERT_NE(kb.spaceFor("gemm", "cpu-avx512"), nullptr);
  EXPECT_EQ(kb.spaceFor("gemm", "cpu-avx512")->templatePath, "templates/gemm/gemm_tn.argus");
  EXPECT_EQ(kb.spaceFor("gemm", "hip-gfx942")->name, "gemm-cdna");
  EXPECT_EQ(kb.spaceFor("gemm", "cuda-sm90a")->name, "gemm-sm90");
  EXPECT_EQ(kb.spaceFor("attention", "cuda-sm90a"), nullptr);
}

TEST(Knowledge, ConditionsMovesAndEnumeration) {
  KnowledgeBase kb;
  ASSERT_EQ(errorOf(withSpace(kRowTechnique)), "");
  ASSERT_FALSE(parseKnowledge(withSpace(kRowTechnique), "kb.yaml", kHome, kb));
  const Space &s = kb.spaces[0];
  const Technique &t = kb.techniques[0];
  Features f = {{"M", 4}, {"N", 64}, {"K", 128}, {"ELEM", 2}, {"THREADS", 2}};
  Point p = {{"BM", 2}, {"BN", 16}, {"BK", 64}};
  EXPECT_TRUE(t.appliesTo(s, f, p));                     // 4 >= 2*2
  EXPECT_FALSE(t.appliesTo(s, f, {{"BM", 4}, {"BN", 16}, {"BK", 64}})); // 4 < 8
  EXPECT_EQ(t.apply(s, p)->at("BM"), 4);
  EXPECT_FALSE(t.apply(s, {{"BM", 8}, {"BN", 16}, {"BK", 64}})); // top of the ladder
  // Up from between two rungs goes to the next rung.
  EXPECT_EQ(t.apply(s, {{"BM", 3}, {"BN", 16}, {"BK", 64}})->at("BM"), 4);
  // Constraints and ladders both bound the enumeration: BM <= 8 here.
  std::vector<Point> all = s.enumerate(f);
  EXPECT_EQ(all.size(), 4u * 2 * 3);
  f["M"] = 1;
  EXPECT_EQ(s.enumerate(f).size(), 2u * 2 * 3); // BM in {1, 2}
  EXPECT_FALSE(s.admits(f, {{"BM", 4}, {"BN", 16}, {"BK", 64}}));
  EXPECT_FALSE(s.admits(f, {{"BM", 1}, {"BN", 24}, {"BK", 64}})); // off the ladder
  EXPECT_EQ(s.featuresAt({{"M", 100}, {"N", 64}}, {{"BM", 32}, {"BN", 16}}).at("TILES"), 4 * 4);
}

TEST(Knowledge, ErrorsNameTheFileLineAndCause) {
  EXPECT_EQ(errorOf("spaces: [\n"), errorOf("spaces: [\n")); // deterministic
  EXPECT_NE(errorOf("spaces: [\n").find("kb.yaml:"), std::string::npos);
  EXPECT_NE(errorOf("space: []\n").find("kb.yaml:1: unknown key 'space'"), std::string::npos);

  std::string e = errorOf(withSpace(std::string(kRowTechnique) + "    colour: red\n"));
  EXPECT_NE(e.find("kb.yaml:17: unknown key 'colour' in a technique"), std::string::npos) << e;

  e = errorOf(withSpace(R"(  - name: t
    space: s
    when: ["Q > 2"]
    changes: {BM: up}
    keeps: [race]
    note: n
)"));
  EXPECT_NE(e.find("kb.yaml:12: condition 'Q > 2' names 'Q', which is neither a feature nor a parameter"),
            std::string::npos)
      << e;
  EXPECT_NE(errorOf(withSpace(R"(  - name: t
    space: s
    when: ["M >> 2"]
    changes: {BM: up}
    keeps: [race]
    note: n
)")).find("is not 'TERM OP TERM'"),
            std::string::npos);

  e = errorOf(withSpace("  - name: t\n    space: s\n    changes: {BQ: up}\n    keeps: [race]\n    note: n\n"));
  EXPECT_NE(e.find("technique 't' changes 'BQ', which space 's' does not tune"), std::string::npos) << e;
  e = errorOf(withSpace("  - name: t\n    space: s\n    changes: {BM: sideways}\n    keeps: [race]\n    note: n\n"));
  EXPECT_NE(e.find("a change is up, down or a positive integer, not 'sideways'"), std::string::npos) << e;
  e = errorOf(withSpace("  - name: t\n    space: s\n    changes: {BM: up}\n    keeps: [stack-budget]\n    note: n\n"));
  EXPECT_NE(e.find("'stack-budget' is not a verifier check"), std::string::npos) << e;
  e = errorOf(withSpace("  - name: t\n    space: s\n    changes: {BM: up}\n    keeps: [race]\n"
                        "    repairs: [bad-luck]\n    note: n\n"));
  EXPECT_NE(e.find("'bad-luck' is not a failure class"), std::string::npos) << e;

  // Spaces: ladders, templates and their parameters, families, targets.
  auto space = [](const std::string &params, const std::string &tmpl = "templates/gemm/gemm_tn.argus",
                  const std::string &family = "gemm", const std::string &target = "cpu-avx2") {
    return "  - name: s\n    family: " + family + "\n    template: " + tmpl + "\n    targets: [" + target +
           "]\n    parameters: " + params + "\n    note: n\n";
  };
  e = errorOf(withSpace(kRowTechnique, space("{BM: [4, 2]}")));
  EXPECT_NE(e.find("the ladder of BM must rise strictly"), std::string::npos) << e;
  e = errorOf(withSpace(kRowTechnique, space("{BM: [0, 2]}")));
  EXPECT_NE(e.find("BM takes positive integers, not '0'"), std::string::npos) << e;
  e = errorOf(withSpace(kRowTechnique, space("{BM: [1], WM: [1, 2]}")));
  EXPECT_NE(e.find("kb.yaml:6: space 's': template 'templates/gemm/gemm_tn.argus' has no const parameter 'WM'"),
            std::string::npos)
      << e;
  e = errorOf(withSpace(kRowTechnique, space("{BM: [1]}", "templates/gemm/missing.argus")));
  EXPECT_NE(e.find("template 'templates/gemm/missing.argus' cannot be read"), std::string::npos) << e;
  e = errorOf(withSpace(kRowTechnique, space("{BM: [1]}", "templates/gemm/gemm_tn.argus", "conv")));
  EXPECT_NE(e.find("unknown family 'conv'"), std::string::npos) << e;
  e = errorOf(withSpace(kRowTechnique, space("{BM: [1]}", "templates/gemm/gemm_tn.argus", "gemm", "tpu-v5")));
  EXPECT_NE(e.find("target 'tpu-v5' is not cpu-*, cuda-* or hip-*"), std::string::npos) << e;
  // Without a home directory the templates are not read.
  EXPECT_EQ(errorOf(withSpace(kRowTechnique, space("{BM: [1, 2], WM: [1]}")), ""), "");
}

TEST(Knowledge, WholeBaseChecks) {
  KnowledgeBase kb;
  ASSERT_FALSE(parseKnowledge(withSpace(kRowTechnique), "a.yaml", kHome, kb));
  ASSERT_FALSE(parseKnowledge(std::string("techniques:\n") + kRowTechnique, "b.yaml", kHome, kb));
  auto e = checkKnowledge(kb);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("b.yaml:2: technique 'rows' is defined twice"), std::string::npos) << *e;

  KnowledgeBase lonely;
  ASSERT_FALSE(parseKnowledge(withSpace(""), "c.yaml", kHome, lonely));
  e = checkKnowledge(lonely);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("space 's' has no technique to move in it"), std::string::npos) << *e;

  // A technique before (or without) its space cannot check its conditions.
  KnowledgeBase none;
  auto err = parseKnowledge(std::string("techniques:\n") + kRowTechnique, "d.yaml", kHome, none);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("space 's' must be defined before its techniques"), std::string::npos) << *err;
}

TEST(Knowledge, ClassifiesFailures) {
  EXPECT_EQ(classifyFailure("kernel 'g' needs 704 KiB of stack for its tiles (the CPU backend's limit is 512 KiB)"),
            "stack-budget");
  EXPECT_EQ(classifyFailure("the shared buffers of kernel 'g' take 98304 bytes of LDS; a CDNA workgroup has 65536"),
            "lds-budget");
  EXPECT_EQ(classifyFailure("g.argus:17:5: error: assertion failed: BK must be a multiple of 32"),
            "template-assertion");
  EXPECT_EQ(classifyFailure("g.argus:30:9: error: [race] two threads write one slot\n  access 1: ..."), "race");
  EXPECT_EQ(classifyFailure("g.argus:30:9: error: [out-of-bounds] slot 70 of 64"), "out-of-bounds");
  EXPECT_EQ(classifyFailure("x.cpp:3:1: error: expected ';'"), "compile-error");
  EXPECT_EQ(classifyFailure("something else"), "");
}
