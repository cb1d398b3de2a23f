#include "provider/tls_options.hpp"

#include <stdexcept>

namespace retryproof::provider {

void add_tls_options(CLI::App& command, TlsOptions& tls) {
  CLI::Option* generate =
      command.add_flag("--tls", tls.generate,
                       "Serve HTTPS (TLS 1.2 and 1.3) with a certificate made at start for "
                       "localhost, 127.0.0.1 and ::1, signed by a CA of its own whose file is "
                       "named on the second line of output (\"CA file: PATH\"); trust that file");
  CLI::Option* certificate =
      command.add_option("--tls-cert", tls.certificate,
                         "Serve HTTPS with this certificate (PEM; the server's first, then any "
                         "intermediates); needs --tls-key");
  CLI::Option* key =
      command.add_option("--tls-key", tls.key, "The private key (PEM, unencrypted) of --tls-cert");
  certificate->needs(key);
  key->needs(certificate);
  generate->excludes(certificate);
  generate->excludes(key);
}

void load_tls_files(const TlsOptions& tls, ServerOptions& server) {
  if (tls.certificate.empty()) return;
  try {
    server.tls = load_tls_identity(tls.certificate, tls.key);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("--tls-cert/--tls-key: ") + error.what());
  }
}

std::unique_ptr<TempDir> generate_tls(const TlsOptions& tls, ServerOptions& server) {
  if (!tls.generate) return nullptr;
  GeneratedTls generated = generate_tls_identity();
  auto directory = std::make_unique<TempDir>("retryproof-tls");
  directory->write("ca.pem", generated.ca_certificate_pem);
  server.tls = std::move(generated.identity);
  return directory;
}

void print_first_lines(std::ostream& out, const std::string& url, const TempDir* tls_files) {
  out << url << '\n';
  if (tls_files) out << "CA file: " << (tls_files->path() / "ca.pem").string() << '\n';
  out << std::flush;
}

}  // namespace retryproof::provider
