//===- ScriptedChatServer.cpp - a local chat-completions server for tests -===//
#include "ScriptedChatServer.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace argus::test {

ScriptedChatServer::ScriptedChatServer(std::vector<Response> script) : script_(std::move(script)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) throw std::runtime_error("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listener_, 8) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
    throw std::runtime_error("cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ScriptedChatServer::~ScriptedChatServer() {
  stopping_ = true;
  thread_.join();
  ::close(listener_);
}

std::string ScriptedChatServer::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

std::vector<ScriptedChatServer::Request> ScriptedChatServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

std::string ScriptedChatServer::completion(const std::string &content) {
  nlohmann::json body = {
      {"id", "chatcmpl-test"},
      {"object", "chat.completion"},
      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}}};
  return body.dump();
}

void ScriptedChatServer::serve() {
  while (!stopping_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void ScriptedChatServer::answer(int client) {
  // Headers, then Content-Length bytes of body.
  std::string data;
  char buf[4096];
  size_t headerEnd = std::string::npos;
  while (headerEnd == std::string::npos) {
    ssize_t n = ::recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    data.append(buf, size_t(n));
    headerEnd = data.find("\r\n\r\n");
  }
  Request request;
  const size_t lineEnd = data.find("\r\n");
  request.requestLine = data.substr(0, lineEnd);
  request.headers = data.substr(lineEnd + 2, headerEnd - lineEnd - 2);
  size_t length = 0;
  std::string lower = request.headers;
  for (char &c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (size_t at = lower.find("content-length:"); at != std::string::npos)
    length = std::stoul(request.headers.substr(at + 15));
  request.body = data.substr(headerEnd + 4);
  while (request.body.size() < length) {
    ssize_t n = ::recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.body.append(buf, size_t(n));
  }
  Response response{500, R"({"error": {"message": "the test script has no more responses"}})", 0};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    if (nextResponse_ < script_.size()) response = script_[nextResponse_++];
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(response.delaySeconds);
  while (!stopping_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const std::string reply = "HTTP/1.1 " + std::to_string(response.status) + " Scripted\r\n" +
                            "Content-Type: application/json\r\nContent-Length: " +
                            std::to_string(response.body.size()) + "\r\nConnection: close\r\n\r\n" + response.body;
  ::send(client, reply.data(), reply.size(), MSG_NOSIGNAL); // the client may have given up (a timeout)
}

} // namespace argus::test
