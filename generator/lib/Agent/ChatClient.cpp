//===- ChatClient.cpp - an OpenAI-compatible chat-completions call --------===//
#include "argus/Agent/ChatClient.h"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <mutex>

namespace argus::agent {

using json = nlohmann::json;

const char *chatStatusName(ChatReply::Status status) {
  switch (status) {
  case ChatReply::Status::Ok: return "ok";
  case ChatReply::Status::Transport: return "transport-error";
  case ChatReply::Status::Timeout: return "timeout";
  case ChatReply::Status::HttpError: return "http-error";
  case ChatReply::Status::Malformed: return "malformed";
  case ChatReply::Status::Refused: return "refused";
  }
  return "unknown";
}

std::string chatCompletionsUrl(const std::string &endpoint) {
  static const std::string suffix = "/chat/completions";
  std::string url = endpoint;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() >= suffix.size() && url.compare(url.size() - suffix.size(), suffix.size(), suffix) == 0) return url;
  return url + suffix;
}

std::string chatRequestBody(const ChatRequest &request) {
  json messages = json::array();
  for (const ChatMessage &m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  json body = {{"model", request.model},
               {"messages", messages},
               {"temperature", request.temperature},
               {"max_tokens", request.maxTokens},
               {"seed", request.seed},
               {"stream", false}};
  // Invalid UTF-8 (a template's bytes) is replaced, not thrown.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

ChatReply failed(ChatReply::Status status, std::string why) {
  ChatReply r;
  r.status = status;
  r.error = std::move(why);
  return r;
}

/// The message of an error body ({"error": {"message": ...}} or {"error": "..."}).
std::string errorMessage(const std::string &body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error")) {
    const json &e = j["error"];
    if (e.is_string()) return e.get<std::string>();
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
  }
  return body.size() <= 300 ? body : body.substr(0, 300) + "...";
}

size_t appendBody(char *data, size_t size, size_t count, void *out) {
  static_cast<std::string *>(out)->append(data, size * count);
  return size * count;
}

} // namespace

ChatReply parseChatResponse(const std::string &body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return failed(ChatReply::Status::Malformed, "the reply is not a JSON object");
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return failed(ChatReply::Status::Malformed, "the reply has no choices");
  const json &choice = j["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    return failed(ChatReply::Status::Malformed, "the reply's first choice has no message");
  const json &message = choice["message"];
  if (message.contains("refusal") && message["refusal"].is_string() && !message["refusal"].get<std::string>().empty())
    return failed(ChatReply::Status::Refused, "the model refused: " + message["refusal"].get<std::string>());
  if (choice.contains("finish_reason") && choice["finish_reason"] == "content_filter")
    return failed(ChatReply::Status::Refused, "the reply was withheld by the server's content filter");
  if (!message.contains("content") || !(message["content"].is_string() || message["content"].is_null()))
    return failed(ChatReply::Status::Malformed, "the reply's message has no text content");
  ChatReply r;
  r.content = message["content"].is_string() ? message["content"].get<std::string>() : "";
  if (r.content.find_first_not_of(" \t\r\n") == std::string::npos)
    return failed(ChatReply::Status::Refused, "the model replied with nothing");
  r.status = ChatReply::Status::Ok;
  return r;
}

ChatReply sendChat(const ChatRequest &request) {
  static std::once_flag curlReady;
  std::call_once(curlReady, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  const auto start = std::chrono::steady_clock::now();
  CURL *curl = curl_easy_init();
  if (!curl) return failed(ChatReply::Status::Transport, "libcurl could not start a transfer");

  const std::string url = chatCompletionsUrl(request.endpoint), body = chatRequestBody(request);
  std::string received;
  char curlError[CURL_ERROR_SIZE] = "";
  curl_slist *headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:"); // send the body at once, no 100-continue round trip
  if (!request.apiKey.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + request.apiKey).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &received);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curlError);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, long(request.timeoutSeconds * 1000));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); // timeouts without SIGALRM: the sweep has threads
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);

  ChatReply reply;
  if (code == CURLE_OPERATION_TIMEDOUT)
    reply = failed(ChatReply::Status::Timeout, "no reply from " + url + " within " +
                                                   std::to_string(int(request.timeoutSeconds + 0.5)) + " s");
  else if (code != CURLE_OK)
    reply = failed(ChatReply::Status::Transport,
                   url + ": " + (curlError[0] ? std::string(curlError) : curl_easy_strerror(code)));
  else if (status < 200 || status >= 300)
    reply = failed(ChatReply::Status::HttpError, url + " answered HTTP " + std::to_string(status) + ": " +
                                                     errorMessage(received));
  else
    reply = parseChatResponse(received);
  reply.httpStatus = status;
  reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

} // namespace argus::agent
