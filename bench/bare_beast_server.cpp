// The load baseline for the provider's own server: Boost.Beast answering a constant JSON
// body, with the provider's defaults (2 I/O threads, a strand per connection, keep-alive,
// TCP_NODELAY). The provider's throughput is reported as a ratio to this.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace net = boost::asio;
namespace http = boost::beast::http;
using net::ip::tcp;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  explicit Connection(tcp::socket socket) : socket_(std::move(socket)) {}

  void read() {
    request_ = {};
    http::async_read(socket_, buffer_, request_,
                     [self = shared_from_this()](boost::system::error_code error, std::size_t) {
                       if (!error) self->answer();
                     });
  }

 private:
  void answer() {
    response_ = {http::status::ok, request_.version()};
    response_.set(http::field::content_type, "application/json");
    response_.body() = R"({"id":"job_00000000","orderId":"order-42"})";
    response_.keep_alive(request_.keep_alive());
    response_.prepare_payload();
    http::async_write(socket_, response_,
                      [self = shared_from_this()](boost::system::error_code error, std::size_t) {
                        if (!error && self->response_.keep_alive()) self->read();
                      });
  }

  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

void accept(net::io_context& io, tcp::acceptor& acceptor) {
  acceptor.async_accept(net::make_strand(io), [&](boost::system::error_code error, tcp::socket s) {
    if (!error) {
      s.set_option(tcp::no_delay(true));
      std::make_shared<Connection>(std::move(s))->read();
    }
    accept(io, acceptor);
  });
}

int main(int argc, char** argv) {
  const auto port = static_cast<unsigned short>(argc > 1 ? std::atoi(argv[1]) : 0);  // 0: free
  net::io_context io;
  tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), port});
  std::printf("http://127.0.0.1:%d\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  accept(io, acceptor);
  std::vector<std::jthread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&io] { io.run(); });
}
