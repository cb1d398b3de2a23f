#include "deliver/deliver_command.hpp"

#include <iostream>
#include <memory>

#include "common/duration.hpp"
#include "deliver/deliverer.hpp"
#include "deliver/signature.hpp"

namespace retryproof::deliver {
namespace {

struct DeliverCommandOptions {
  std::string target;
  std::string events;
  std::string secret;
  std::uint64_t seed = 0;
  std::string timeout = "10s";
};

// "copy 2, concurrent with copy 1": how this delivery relates to the event's other one.
std::string how_sent(const Delivery& delivery, Duplicate duplicate, const std::string& next_event) {
  if (duplicate == Duplicate::concurrent)
    return delivery.copy == 1 ? "first, concurrent with copy 2" : "concurrent with copy 1";
  if (delivery.copy == 1) return "first";
  if (duplicate == Duplicate::out_of_order) return "out-of-order, after " + next_event;
  return std::string(row_of(duplicate).name) + ", after copy 1 was answered";
}

std::string answer_text(const DeliveryResult& result) {
  if (!result.response.ok())
    return "no answer (" + client::to_string(result.response.failure) + ")";
  return std::to_string(result.response.status) +
         (result.acknowledged() ? "" : " (not acknowledged)");
}

int deliver(const DeliverCommandOptions& command) {
  DeliverOptions options;
  std::vector<Event> events;
  try {
    options.target = parse_target(command.target);
    options.secret = command.secret;
    try {
      options.timeout = parse_duration(command.timeout);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument("--timeout " + command.timeout + ": " + error.what());
    }
    events = load_events(command.events);
  } catch (const std::exception& error) {
    std::cerr << "retryproof deliver: " << error.what() << '\n';
    return 2;
  }
  const DeliveryPlan plan = plan_deliveries(events.size(), command.seed);
  const std::vector<DeliveryResult> results = deliver_all(events, plan, options);

  std::size_t acknowledged = 0;
  for (const DeliveryResult& result : results) {
    const std::size_t event = result.delivery.event;
    const std::string next = event + 1 < events.size() ? events[event + 1].id : "";
    std::cout << events[event].id << "  copy " << result.delivery.copy << "  "
              << how_sent(result.delivery, plan.duplicate_of_event[event], next) << "  "
              << answer_text(result) << '\n';
    if (result.acknowledged()) ++acknowledged;
  }
  std::cout << results.size() << " deliveries of " << events.size() << " events to "
            << command.target << " (seed " << command.seed << "): " << acknowledged
            << " acknowledged";
  if (acknowledged < results.size()) {
    std::cout << ", " << results.size() - acknowledged
              << " not (a 2xx acknowledges a delivery; a provider sends anything else again)";
  }
  std::cout << '\n';
  return acknowledged == results.size() ? 0 : 1;
}

}  // namespace

void add_deliver_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DeliverCommandOptions>();
  std::string duplicates;
  for (const DuplicateRow& row : duplicate_catalogue())
    duplicates += "  " + std::string(row.name) + ": " + std::string(row.what) + "\n";
  CLI::App* command = app.add_subcommand(
      "deliver",
      "Send webhook events to a service with the duplicates real providers send: each event "
      "once, then once more sequentially, concurrently or out of order (seeded). Prints each "
      "delivery and its answer. Exit 0 when every delivery got a 2xx, 1 when one did not, 2 for "
      "bad input.");
  command
      ->add_option("--target", options->target,
                   "The receiver's URL, such as http://127.0.0.1:8080/webhooks")
      ->required();
  command
      ->add_option("--events", options->events,
                   "A JSON file: an array of event objects (or {\"events\": [...]}), each with a "
                   "unique string \"id\"; each is POSTed as written")
      ->required();
  command->add_option("--secret", options->secret,
                      "Sign each delivery: " + std::string(kSignatureHeader) +
                          ": sha256=<hex HMAC-SHA256 of the body under the secret>");
  command->add_option("--seed", options->seed, "Which event gets which duplicate, and so the order")
      ->capture_default_str();
  command->add_option("--timeout", options->timeout, "How long to wait for each answer")
      ->capture_default_str();
  command->footer("Every delivery carries " + std::string(kEventIdHeader) + ": <id> and " +
                  std::string(kDeliveryHeader) + ": <copy, from 1>.\nDuplicates:\n" + duplicates);
  command->callback([options, &exit_code] { exit_code = deliver(*options); });
}

}  // namespace retryproof::deliver
