//===- LlmProposerTest.cpp - the LLM proposer with a scripted model -------===//
#include "argus/Agent/LlmProposer.h"

#include "KernelSignature.h"

#include "ShippedKnowledge.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace argus::agent;

using argus::test::kHome;
using argus::test::shippedBase;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string &gemmTemplate() {
  static const std::string text = readFile(kHome + "/templates/gemm/gemm_tn.argus");
  return text;
}

/// The template with `from` replaced by `to` (which must occur).
std::string edited(const std::string &from, const std::string &to) {
  std::string text = gemmTemplate();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string reply(const std::string &kernel, const std::string &parameters = "") {
  return "A wider k-step keeps the panel in L1.\n```python\n" + kernel + "```\n" +
         (parameters.empty() ? "" : "PARAMETERS: " + parameters + "\n");
}


SearchProblem gemmProblem() {
  SearchProblem p;
  p.space = shippedBase().space("gemm-cpu");
  p.features = {{"M", 16}, {"N", 4096}, {"K", 4096}, {"ELEM", 2}, {"THREADS", 2}};
  p.rule = {{"BM", 16}, {"BN", 64}, {"BK", 256}};
  p.techniques = shippedBase().techniquesOf("gemm-cpu");
  return p;
}

/// A proposer whose model answers from `replies` in turn (then HTTP 500),
/// with every prompt and log entry kept.
struct Scripted {
  std::vector<ChatReply> replies;
  std::vector<std::vector<ChatMessage>> prompts;
  std::vector<LlmExchange> log;
  std::unique_ptr<Strategy> proposer;

  explicit Scripted(std::vector<ChatReply> r) : replies(std::move(r)) {
    LlmOptions o;
    o.model = "scripted";
    o.systemPrompt = readFile(kHome + "/templates/knowledge/llm-prompt.md");
    o.templateText = gemmTemplate();
    o.target = "cpu-avx2";
    const SearchProblem problem = gemmProblem();
    proposer = makeLlmProposer(
        problem, makePlanner(problem, CostModel(Roofs{500e9, 50e9, 2}), {}, {1}),
        [this](const std::vector<ChatMessage> &m) {
          prompts.push_back(m);
          if (prompts.size() <= replies.size()) return replies[prompts.size() - 1];
          ChatReply r;
          r.status = ChatReply::Status::HttpError;
          r.error = "HTTP 500";
          return r;
        },
        o, [this](const LlmExchange &e) { log.push_back(e); });
  }
};

ChatReply ok(const std::string &content) {
  ChatReply r;
  r.status = ChatReply::Status::Ok;
  r.content = content;
  return r;
}

Outcome timed(double seconds) { return {Outcome::Status::Ok, seconds, true, ""}; }

} // namespace

TEST(LlmReply, KernelAndParametersOfAReply) {
  auto r = readKernelReply(reply(gemmTemplate(), "BM=32, BN=128 BK=512"));
  ASSERT_TRUE(std::holds_alternative<KernelReply>(r)) << std::get<std::string>(r);
  EXPECT_EQ(std::get<KernelReply>(r).kernel, gemmTemplate());
  EXPECT_EQ(std::get<KernelReply>(r).parameters, (Point{{"BM", 32}, {"BN", 128}, {"BK", 512}}));

  auto none = readKernelReply("I would widen BN.\nPARAMETERS: BN=128");
  ASSERT_TRUE(std::holds_alternative<std::string>(none));
  EXPECT_NE(std::get<std::string>(none).find("no fenced code block"), std::string::npos);
  auto cut = readKernelReply("```python\n@kernel(grid=(1,))\ndef f(");
  ASSERT_TRUE(std::holds_alternative<std::string>(cut));
  EXPECT_NE(std::get<std::string>(cut).find("never closed"), std::string::npos);
  for (const char *bad : {"BM=0", "BM=sixteen", "BM", "=4"}) {
    auto r2 = readKernelReply(reply(gemmTemplate(), bad));
    ASSERT_TRUE(std::holds_alternative<std::string>(r2)) << bad;
    EXPECT_NE(std::get<std::string>(r2).find("PARAMETERS line"), std::string::npos) << bad;
  }
  // A first block without a kernel (an explanation) is skipped.
  auto second = readKernelReply("```text\nnotes\n```\n" + reply(gemmTemplate()));
  ASSERT_TRUE(std::holds_alternative<KernelReply>(second));
}

TEST(LlmReply, AKernelMustKeepTheTemplatesSignature) {
  using namespace argus::agent::detail;
  auto sig = [](const std::string &text) {
    auto s = readKernelSignature(text);
    EXPECT_TRUE(std::holds_alternative<KernelSignature>(s)) << std::get<std::string>(s);
    return std::holds_alternative<KernelSignature>(s) ? std::get<KernelSignature>(s) : KernelSignature{};
  };
  const KernelSignature original = sig(gemmTemplate());
  EXPECT_EQ(original.name, "gemm_tn");
  EXPECT_EQ(original.reference, "gemm_tn");
  EXPECT_EQ(original.parameters.size(), 12u);
  EXPECT_EQ(original.parameters[0].annotation, "Tensor [ M , K , TA ]");

  // Allowed: a new grid, a body change, an added const with a default, new const defaults.
  EXPECT_EQ(signatureMismatch(original, sig(edited("BK: const = 128", "BK: const = 256, UNROLL: const = 2"))), "");
  EXPECT_EQ(signatureMismatch(original, sig(edited("acc = zeros((BM, BN), f32)", "acc = zeros((BM, BN), f32)  # v2"))),
            "");
  struct Case {
    std::string from, to, says;
  };
  const Case refused[] = {
      {"def gemm_tn(", "def gemm_fast(", "named 'gemm_fast'"},
      {"reference=\"gemm_tn\"", "reference=\"gemm_nn\"", "reference is 'gemm_nn'"},
      {"bias: Tensor[N, TC]", "bias: Tensor[M, TC]", "parameter 'bias' is annotated 'Tensor [ M , TC ]'"},
      {"alpha: f32, beta: f32", "beta: f32, alpha: f32", "run-time parameter 5 is 'beta'"},
      {", has_bias: i32", "", "lacks the template's parameter 'has_bias'"},
      {"has_bias: i32,", "has_bias: i32, scratch: Tensor[M, f32],", "adds the parameter 'scratch'"},
      {", BK: const = 128", "", "lacks the template's const parameter 'BK'"},
      {"def gemm_tn(", "def gemm_tn(U: const, ", "added const parameter 'U' has no default"},
  };
  for (const Case &c : refused) {
    std::string why = signatureMismatch(original, sig(edited(c.from, c.to)));
    EXPECT_NE(why.find(c.says), std::string::npos) << c.to << " -> '" << why << "'";
  }
  auto broken = readKernelSignature("@kernel(grid=(1,))\ndef f(x:\n");
  ASSERT_TRUE(std::holds_alternative<std::string>(broken));
  EXPECT_NE(std::get<std::string>(broken).find("does not parse: line"), std::string::npos);
  EXPECT_EQ(std::get<std::string>(readKernelSignature("def f(x):\n    pass\n")), "it has no @kernel function");
}

TEST(LlmProposer, AsksWithTheContextAndProposesTheKernel) {
  const std::string variant = edited("acc = zeros((BM, BN), f32)", "acc = zeros((BM, BN), f32)  # variant");
  Scripted s({ok(reply(variant, "BN=128"))});
  // The rule's point first, without asking.
  std::optional<Proposal> first = s.proposer->next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->point, gemmProblem().rule);
  EXPECT_TRUE(first->kernel.empty());
  EXPECT_TRUE(s.prompts.empty());
  s.proposer->observe(*first, timed(40e-6));

  std::optional<Proposal> second = s.proposer->next();
  ASSERT_EQ(s.prompts.size(), 1u);
  const std::string &system = s.prompts[0][0].content, &user = s.prompts[0][1].content;
  EXPECT_NE(system.find("# The Argus DSL"), std::string::npos) << "the DSL reference";
  EXPECT_NE(system.find("PARAMETERS:"), std::string::npos) << "the reply format";
  EXPECT_NE(user.find("M=16"), std::string::npos) << "the configuration";
  EXPECT_NE(user.find("- BK: 32 64 128 256 512"), std::string::npos) << "the ladders:\n" << user;
  EXPECT_NE(user.find("**" + gemmProblem().techniques.front()->name + "**"), std::string::npos) << "techniques";
  EXPECT_NE(user.find(gemmProblem().techniques.front()->note.substr(0, 40)), std::string::npos) << "their notes";
  EXPECT_NE(user.find("40.0 us at BK=256, BM=16, BN=64 (the template)"), std::string::npos) << user;
  EXPECT_NE(user.find("assert_tag(a, b"), std::string::npos) << "the current kernel";

  ASSERT_TRUE(second);
  EXPECT_EQ(second->kernel, variant);
  EXPECT_EQ(second->point, (Point{{"BM", 16}, {"BN", 128}, {"BK", 256}})) << "the reply's BN, the best's others";
  EXPECT_EQ(second->techniques, std::vector<std::string>{"llm:scripted"});
  ASSERT_EQ(s.log.size(), 1u);
  EXPECT_EQ(s.log[0].verdict, "proposed");
}

TEST(LlmProposer, TheCounterexampleOfAFailureReachesTheNextPrompt) {
  const std::string buggy = edited("B.tile((pid(1), kt)", "B.tile((pid(1), 0)");
  const std::string fixed = edited("acc = zeros((BM, BN), f32)", "acc = zeros((BM, BN), f32)  # fixed");
  Scripted s({ok(reply(buggy)), ok(reply(fixed, "BK=512"))});
  std::optional<Proposal> rule = s.proposer->next();
  s.proposer->observe(*rule, timed(40e-6));
  std::optional<Proposal> bad = s.proposer->next();
  ASSERT_TRUE(bad && bad->kernel == buggy);
  const std::string counterexample = "[tag-assertion] tag assertion fails\n  at: block (0, 2, 0) thread 0, kt = 1";
  s.proposer->observe(*bad, {Outcome::Status::Refuted, 0, true, counterexample});
  std::optional<Proposal> good = s.proposer->next();
  ASSERT_EQ(s.prompts.size(), 2u);
  const std::string &user = s.prompts[1][1].content;
  EXPECT_NE(user.find("## Last failure (#2, your kernel)"), std::string::npos) << user;
  EXPECT_NE(user.find(counterexample), std::string::npos);
  EXPECT_NE(user.find("your kernel, BK=256, BM=16, BN=64: refuted by the verifier [tag-assertion]"), std::string::npos)
      << user;
  ASSERT_TRUE(good);
  EXPECT_EQ(good->kernel, fixed);
  EXPECT_EQ(good->point.at("BK"), 512);
}

TEST(LlmProposer, UnusableRepliesFallBackOnThePlannerAndAreLogged) {
  ChatReply timeout;
  timeout.status = ChatReply::Status::Timeout;
  timeout.error = "no reply within 120 s";
  Scripted s({timeout, ok("I would rather not write kernels."),
              ok(reply(edited("def gemm_tn(", "def gemm_mine("))), ok(reply(gemmTemplate(), "BN=128"))});
  std::optional<Proposal> rule = s.proposer->next();
  s.proposer->observe(*rule, timed(40e-6));
  // Three unusable replies: each step still proposes (the planner's move), and
  // after the third the model is not asked again.
  for (int i = 0; i < 5; ++i) {
    std::optional<Proposal> p = s.proposer->next();
    ASSERT_TRUE(p) << i;
    EXPECT_TRUE(p->kernel.empty());
    EXPECT_TRUE(std::find(p->techniques.begin(), p->techniques.end(), "llm:scripted") == p->techniques.end());
    s.proposer->observe(*p, timed(50e-6));
  }
  EXPECT_EQ(s.prompts.size(), 3u);
  ASSERT_EQ(s.log.size(), 3u);
  EXPECT_EQ(s.log[0].verdict, "timeout: no reply within 120 s");
  EXPECT_NE(s.log[1].verdict.find("unusable: the reply holds no fenced code block"), std::string::npos);
  EXPECT_NE(s.log[2].verdict.find("named 'gemm_mine'"), std::string::npos) << s.log[2].verdict;
  EXPECT_NE(s.log[2].verdict.find("not asked again"), std::string::npos);
  // Each prompt after an unusable reply says why it was not used.
  EXPECT_NE(s.prompts[1][1].content.find("## Your previous reply could not be used\ntimeout"), std::string::npos);
}

TEST(LlmProposer, TheTemplateAtNewParametersIsAnOrdinaryCandidateAndRepeatsAreRefused) {
  Scripted s({ok(reply(gemmTemplate(), "BN=128")), ok(reply(gemmTemplate(), "BN=128")),
              ok(reply(gemmTemplate(), "BN=96")), ok(reply(gemmTemplate(), "XX=4"))});
  std::optional<Proposal> rule = s.proposer->next();
  s.proposer->observe(*rule, timed(40e-6));
  std::optional<Proposal> p = s.proposer->next();
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->kernel.empty()) << "the template itself needs no kernel of its own";
  EXPECT_EQ(p->techniques, std::vector<std::string>{"llm:scripted"});
  s.proposer->observe(*p, timed(45e-6));
  for (int i = 0; i < 3; ++i) s.proposer->observe(*s.proposer->next(), timed(60e-6));
  ASSERT_EQ(s.log.size(), 4u);
  EXPECT_NE(s.log[1].verdict.find("repeats a candidate already tried"), std::string::npos) << s.log[1].verdict;
  EXPECT_NE(s.log[2].verdict.find("outside the space"), std::string::npos) << s.log[2].verdict;
  EXPECT_NE(s.log[3].verdict.find("'XX', which the space does not tune"), std::string::npos) << s.log[3].verdict;
}
