//===- ScriptedChatServer.h - a local chat-completions server for tests -*- C++ -*-===//
//
// Listens on 127.0.0.1 (an ephemeral port) and answers each request with the
// next scripted response: an HTTP status, a body and a delay before it (to
// provoke a client's timeout). Every request is recorded. A request past the
// script's end gets HTTP 500.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_SCRIPTEDCHATSERVER_H
#define ARGUS_TEST_SCRIPTEDCHATSERVER_H

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace argus::test {

class ScriptedChatServer {
public:
  struct Response {
    int status = 200;
    std::string body;
    double delaySeconds = 0;
  };
  struct Request {
    std::string requestLine; // "POST /v1/chat/completions HTTP/1.1"
    std::string headers;     // the raw header lines
    std::string body;
  };

  explicit ScriptedChatServer(std::vector<Response> script);
  ~ScriptedChatServer();
  ScriptedChatServer(const ScriptedChatServer &) = delete;
  ScriptedChatServer &operator=(const ScriptedChatServer &) = delete;

  /// http://127.0.0.1:PORT/v1
  std::string endpoint() const;
  std::vector<Request> requests() const;

  /// A chat-completions body whose first choice says `content`.
  static std::string completion(const std::string &content);

private:
  void serve();
  void answer(int client);

  std::vector<Response> script_;
  size_t nextResponse_ = 0;
  int listener_ = -1, port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
  std::thread thread_;
};

} // namespace argus::test

#endif // ARGUS_TEST_SCRIPTEDCHATSERVER_H
