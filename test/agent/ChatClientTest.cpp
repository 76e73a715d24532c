//===- ChatClientTest.cpp - the chat-completions client against a scripted server -===//
#include "argus/Agent/ChatClient.h"

#include "ScriptedChatServer.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace argus::agent;
using argus::test::ScriptedChatServer;

namespace {

ChatRequest requestTo(const std::string &endpoint, double timeout = 10) {
  ChatRequest r;
  r.endpoint = endpoint;
  r.model = "scripted-model";
  r.messages = {{"system", "You write kernels."}, {"user", "Make gemm_tn faster: \"quoted\" \u00e9\n```python\n```"}};
  r.timeoutSeconds = timeout;
  r.seed = 7;
  return r;
}

/// A port nothing listens on: bound, then closed.
int closedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

} // namespace

TEST(ChatClient, CompletionsUrlOfAnEndpoint) {
  EXPECT_EQ(chatCompletionsUrl("http://h:8000/v1"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chatCompletionsUrl("http://h:8000/v1/"), "http://h:8000/v1/chat/completions");
  EXPECT_EQ(chatCompletionsUrl("https://api.example.com/v1/chat/completions"),
            "https://api.example.com/v1/chat/completions");
}

TEST(ChatClient, SendsTheProtocolsRequestAndReadsTheReply) {
  ScriptedChatServer server({{200, ScriptedChatServer::completion("here is a kernel"), 0}});
  ChatRequest request = requestTo(server.endpoint());
  request.apiKey = "sk-test";
  ChatReply reply = sendChat(request);
  ASSERT_EQ(reply.status, ChatReply::Status::Ok) << reply.error;
  EXPECT_EQ(reply.content, "here is a kernel");
  EXPECT_EQ(reply.httpStatus, 200);

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].requestLine, "POST /v1/chat/completions HTTP/1.1");
  EXPECT_NE(requests[0].headers.find("Authorization: Bearer sk-test"), std::string::npos) << requests[0].headers;
  EXPECT_NE(requests[0].headers.find("Content-Type: application/json"), std::string::npos);
  nlohmann::json body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "scripted-model");
  EXPECT_EQ(body["stream"], false);
  EXPECT_EQ(body["seed"], 7);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1]["content"], request.messages[1].content) << "text survives JSON escaping";
}

TEST(ChatClient, NoKeyNoAuthorizationHeader) {
  ScriptedChatServer server({{200, ScriptedChatServer::completion("ok"), 0}});
  ASSERT_EQ(sendChat(requestTo(server.endpoint())).status, ChatReply::Status::Ok);
  EXPECT_EQ(server.requests().at(0).headers.find("Authorization"), std::string::npos);
}

TEST(ChatClient, HttpErrorsCarryTheServersMessage) {
  ScriptedChatServer server({{429, R"({"error": {"message": "rate limit reached", "type": "requests"}})", 0},
                             {503, "upstream unavailable", 0}});
  ChatReply a = sendChat(requestTo(server.endpoint()));
  EXPECT_EQ(a.status, ChatReply::Status::HttpError);
  EXPECT_EQ(a.httpStatus, 429);
  EXPECT_NE(a.error.find("HTTP 429: rate limit reached"), std::string::npos) << a.error;
  ChatReply b = sendChat(requestTo(server.endpoint()));
  EXPECT_EQ(b.status, ChatReply::Status::HttpError);
  EXPECT_NE(b.error.find("HTTP 503: upstream unavailable"), std::string::npos) << b.error;
}

TEST(ChatClient, MalformedBodiesAndRefusals) {
  struct Case {
    const char *body;
    ChatReply::Status status;
    const char *says;
  };
  const Case cases[] = {
      {"<html>not json</html>", ChatReply::Status::Malformed, "not a JSON object"},
      {R"({"choices": []})", ChatReply::Status::Malformed, "no choices"},
      {R"({"choices": [{"text": "legacy completion"}]})", ChatReply::Status::Malformed, "no message"},
      {R"({"choices": [{"message": {"role": "assistant", "content": 42}}]})", ChatReply::Status::Malformed,
       "no text content"},
      {R"({"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I cannot help with that."}}]})",
       ChatReply::Status::Refused, "I cannot help with that."},
      {R"({"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "content_filter"}]})",
       ChatReply::Status::Refused, "content filter"},
      {R"({"choices": [{"message": {"role": "assistant", "content": "  \n"}, "finish_reason": "stop"}]})",
       ChatReply::Status::Refused, "replied with nothing"},
  };
  for (const Case &c : cases) {
    ChatReply r = parseChatResponse(c.body);
    EXPECT_EQ(r.status, c.status) << c.body;
    EXPECT_NE(r.error.find(c.says), std::string::npos) << c.body << " -> " << r.error;
  }
  // The same through HTTP.
  ScriptedChatServer server({{200, cases[0].body, 0}});
  EXPECT_EQ(sendChat(requestTo(server.endpoint())).status, ChatReply::Status::Malformed);
}

TEST(ChatClient, GivesUpAtItsTimeout) {
  ScriptedChatServer server({{200, ScriptedChatServer::completion("too late"), 5}});
  ChatReply r = sendChat(requestTo(server.endpoint(), 0.5));
  EXPECT_EQ(r.status, ChatReply::Status::Timeout) << r.error;
  EXPECT_NE(r.error.find("no reply from"), std::string::npos);
  EXPECT_LT(r.seconds, 4) << "the request stopped at its timeout, not when the server answered";
}

TEST(ChatClient, NoServerIsATransportError) {
  ChatReply r = sendChat(requestTo("http://127.0.0.1:" + std::to_string(closedPort()) + "/v1"));
  EXPECT_EQ(r.status, ChatReply::Status::Transport);
  EXPECT_NE(r.error.find("127.0.0.1"), std::string::npos) << r.error;
  EXPECT_EQ(sendChat(requestTo("ftp://127.0.0.1/v1")).status, ChatReply::Status::Transport) << "http and https only";
}
