//===- ChatClient.h - an OpenAI-compatible chat-completions call -*- C++ -*-===//
//
// The LLM proposer's one way out: POST {endpoint}/chat/completions with a
// model name and messages, wait at most a timeout, and return the first
// choice's text. Every way it can go wrong (no connection, a timeout, an
// HTTP error, a body that is not the protocol's JSON, a refusal) is a status
// with a message, never an exception: a sweep goes on without the reply.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_AGENT_CHATCLIENT_H
#define ARGUS_AGENT_CHATCLIENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace argus::agent {

struct ChatMessage {
  std::string role; // "system", "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::string endpoint;  // e.g. http://127.0.0.1:8000/v1 (or the full .../chat/completions URL)
  std::string model;
  std::string apiKey;    // sent as "Authorization: Bearer ..." when not empty
  std::vector<ChatMessage> messages;
  double timeoutSeconds = 120;
  double temperature = 0.2;
  int maxTokens = 4096;
  uint64_t seed = 0;     // sent as the protocol's `seed` (servers may ignore it)
};

struct ChatReply {
  enum class Status {
    Ok,        // content holds the reply's text
    Transport, // no connection, DNS, TLS, ...
    Timeout,
    HttpError, // a status other than 2xx
    Malformed, // the body is not a chat completion
    Refused,   // the model refused (`refusal`, finish_reason content_filter) or said nothing
  } status = Status::Transport;
  std::string content;
  std::string error; // why, when not Ok
  long httpStatus = 0;
  double seconds = 0;
};

const char *chatStatusName(ChatReply::Status status);

/// The chat-completions URL of an endpoint: `endpoint` itself when it ends in
/// /chat/completions, else endpoint + "/chat/completions".
std::string chatCompletionsUrl(const std::string &endpoint);

/// The request's JSON body.
std::string chatRequestBody(const ChatRequest &request);

/// Reads a chat-completions response body (as `sendChat` does with a 2xx
/// reply): the first choice's content, or Malformed / Refused with why.
ChatReply parseChatResponse(const std::string &body);

/// Sends the request and waits for the reply (blocking, at most
/// `timeoutSeconds`).
ChatReply sendChat(const ChatRequest &request);

} // namespace argus::agent

#endif // ARGUS_AGENT_CHATCLIENT_H
