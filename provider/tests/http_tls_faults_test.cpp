// Faults over HTTPS at the byte level, with a real OpenSSL client: what each delivery puts in
// the TLS stream and how the stream ends (docs/provider.md, *HTTPS*: a drop and a truncation
// end with close_notify, a reset with an RST and none), and the wrong protocol on either
// port: a prompt, clear failure, never a hang.
#include <gtest/gtest.h>
#include <httplib.h>

#include "common/temp_dir.hpp"
#include "provider/tests/raw_http.hpp"
#include "provider/tests/tls_client.hpp"
#include "provider/tests/tls_fixture.hpp"

namespace retryproof::provider {
namespace {

using testing::ConnectionEnd;
using testing::cut_response;
using testing::OverTls;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::status_of;
using testing::tls_exchange;
using testing::TlsConnection;
using testing::TlsEnd;
using testing::with_faults;
using namespace std::chrono_literals;

TEST_F(OverTls, ACommitThenDropSendsNoResponseRecordThenCloseNotify) {
  serve(with_faults({"commit-then-drop"}));
  const auto exchange = tls_exchange(server->port(), ca(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, TlsEnd::close_notify) << to_string(exchange.end);
  EXPECT_EQ(server->core().job_count(), 1u);
  EXPECT_EQ(last_entry()["delivery"], "drop");
  EXPECT_TRUE(last_entry()["status"].is_null());
  EXPECT_EQ(last_entry()["delivered"], false);
  EXPECT_EQ(last_entry()["closeNotify"], true);  // the journal says how the stream ended
}

TEST_F(OverTls, ACommitThenResetSendsNoResponseRecordAndNoCloseNotifyButAnRst) {
  serve(with_faults({"commit-then-reset"}));
  const auto exchange = tls_exchange(server->port(), ca(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, TlsEnd::reset) << to_string(exchange.end) << " " << exchange.tls_error;
  EXPECT_EQ(server->core().job_count(), 1u);
  EXPECT_EQ(last_entry()["delivery"], "reset");
  EXPECT_TRUE(last_entry()["status"].is_null());
  EXPECT_EQ(last_entry()["closeNotify"], false);
}

TEST_F(OverTls, ACommitThenTruncateCutsTheResponseInsideTheTlsStream) {
  serve(with_faults({"commit-then-truncate"}));
  const auto exchange =
      tls_exchange(server->port(), ca(), raw_post_jobs("k", R"({"orderId":"order-42"})"));
  const std::string& raw = exchange.received;
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 201 Created\r\n")) << raw;
  const auto cut = cut_response(raw);
  ASSERT_TRUE(cut) << raw;
  EXPECT_EQ(cut->body.size(), cut->promised / 2);
  // The TLS stream itself ends cleanly: only the HTTP message is short.
  EXPECT_EQ(exchange.end, TlsEnd::close_notify) << to_string(exchange.end);
  EXPECT_EQ(last_entry()["delivery"], "truncate");
  EXPECT_EQ(last_entry()["status"], 201);
  EXPECT_EQ(last_entry()["delivered"], false);
  EXPECT_EQ(last_entry()["closeNotify"], true);
}

TEST_F(OverTls, TheJournalSaysWhetherAResponseEndedItsStreamWithCloseNotify) {
  serve();
  // Connection: close: the response ends the stream, with close_notify.
  const auto closing = tls_exchange(server->port(), ca(), raw_post_jobs("k1", "{}"));
  ASSERT_EQ(status_of(closing.received), 201) << closing.received;
  EXPECT_EQ(last_entry()["closeNotify"], true);
  // Kept alive: the response ends nothing; the idle close later is no answer's.
  TlsConnection kept(server->port(), {.ca_pem = ca()});
  ASSERT_TRUE(kept.send(testing::raw_post_jobs_keep_alive("k2", "{}")));
  const auto open = kept.read_until_closed(300ms);  // the whole response; the stream goes on
  ASSERT_EQ(status_of(open.received), 201) << open.received;
  EXPECT_EQ(open.end, TlsEnd::timeout) << to_string(open.end) << " " << open.tls_error;
  EXPECT_EQ(last_entry()["closeNotify"], false);
  // Over plain HTTP there is no TLS stream to end: null.
  ProviderServer plain({}, {.port = 0});
  raw_exchange(plain.port(), raw_post_jobs("k", "{}"));
  EXPECT_TRUE(plain.core().journal_json()["entries"].back()["closeNotify"].is_null());
}

TEST_F(OverTls, ATruncatedBodyIsAnErrorForAnHttpsClient) {
  serve(with_faults({"commit-then-truncate"}));
  const TempDir dir("retryproof-tls-test");
  httplib::SSLClient client("127.0.0.1", server->port());
  client.set_ca_cert_path(dir.write("ca.pem", ca()).c_str());
  const auto result = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  EXPECT_FALSE(result);
  EXPECT_EQ(result.error(), httplib::Error::Read);
  EXPECT_EQ(server->core().job_count(), 1u);
  // The same client, verifying the same CA, is answered whole when no fault is planned.
  const auto lookup = client.Get("/jobs/by-idempotency-key/k");
  ASSERT_TRUE(lookup) << httplib::to_string(lookup.error());
  EXPECT_EQ(lookup->status, 200);
}

// nginx's answer to the same mistake: a 400 in plain HTTP that says why, then a close. It
// is refused before any request is read, so it is not journaled (as no refused connection
// is: a head too large, a request line over the limit).
TEST_F(OverTls, PlainHttpToTheTlsPortGetsAPlain400ThatSaysWhyAndAClose) {
  serve();
  const auto started = std::chrono::steady_clock::now();
  const auto exchange = raw_exchange(server->port(), raw_post_jobs("k", "{}"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  EXPECT_EQ(status_of(exchange.received), 400) << exchange.received;
  EXPECT_NE(exchange.received.find("The plain HTTP request was sent to an HTTPS port"),
            std::string::npos)
      << exchange.received;
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  EXPECT_EQ(server->core().journal_size(), 0u);
  EXPECT_EQ(server->core().job_count(), 0u);
}

TEST_F(OverTls, ATlsHandshakeToAPlainPortFailsAtOnce) {
  ProviderServer plain({}, {.port = 0});
  const auto started = std::chrono::steady_clock::now();
  const auto error = testing::tls_handshake_error(plain.port(), ca(), 5s);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->find("timeout"), std::string::npos) << *error;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s) << *error;
  // Journaled as the server's refusal: nothing of a request could be read.
  const std::vector<JournalEntry> journal = plain.core().journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0].outcome, Outcome::refused);
  EXPECT_EQ(journal[0].status, 400);
  EXPECT_EQ(journal[0].method, "");
}

// A client that begins a handshake and stops is closed at the header deadline.
TEST_F(OverTls, AHandshakeThatStallsIsClosedAtTheHeaderDeadline) {
  ProviderServer stalled(
      {}, {.port = 0, .header_timeout = Millis(300), .tls = testing::test_tls().identity});
  testing::RawConnection connection(stalled.port());
  ASSERT_TRUE(connection.send(std::string("\x16\x03\x01", 3)));  // a record header, no more
  const auto started = std::chrono::steady_clock::now();
  const auto exchange = connection.read_until_closed(5s);
  EXPECT_NE(exchange.end, ConnectionEnd::timeout);
  EXPECT_EQ(exchange.received, "");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

}  // namespace
}  // namespace retryproof::provider
