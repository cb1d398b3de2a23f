// The load baseline: cpp-httplib answering a constant JSON body, with the same worker
// count as the provider. The provider's throughput is reported as a ratio to this.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int wanted = argc > 1 ? std::atoi(argv[1]) : 0;  // 0: a free port
  httplib::Server server;
  server.set_tcp_nodelay(true);                                        // as the provider
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };  // the library's API
  const auto answer = [](const httplib::Request&, httplib::Response& response) {
    response.set_content(R"({"id":"job_00000000","orderId":"order-42"})", "application/json");
  };
  server.Post(".*", answer);
  server.Get(".*", answer);
  const int port = wanted == 0 ? server.bind_to_any_port("127.0.0.1")
                               : (server.bind_to_port("127.0.0.1", wanted) ? wanted : -1);
  if (port <= 0) return 1;
  std::printf("http://127.0.0.1:%d\n", port);
  std::fflush(stdout);
  return server.listen_after_bind() ? 0 : 1;
}
