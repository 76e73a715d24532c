//===- ShippedKnowledge.h - the tree's knowledge base, for the agent's tests -*- C++ -*-===//
#ifndef ARGUS_TEST_SHIPPEDKNOWLEDGE_H
#define ARGUS_TEST_SHIPPEDKNOWLEDGE_H

#include "argus/Agent/Knowledge.h"

#include <gtest/gtest.h>

namespace argus::test {

inline const std::string kHome = ARGUS_SOURCE_DIR;

/// templates/knowledge of the source tree, loaded once.
inline const agent::KnowledgeBase &shippedBase() {
  static const agent::KnowledgeBase kb = [] {
    auto loaded = agent::loadKnowledgeBase(kHome + "/templates/knowledge", kHome);
    if (auto *e = std::get_if<std::string>(&loaded)) ADD_FAILURE() << *e;
    return std::get<agent::KnowledgeBase>(loaded);
  }();
  return kb;
}

} // namespace argus::test

#endif // ARGUS_TEST_SHIPPEDKNOWLEDGE_H
