// --tls, --tls-cert and --tls-key, as the provider and the proxy both take them: the
// options, the checks that make a bad file a usage error naming it, the certificate made
// at start, and the first lines of output that say where to connect and what to trust.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>

#include "common/temp_dir.hpp"
#include "provider/server_options.hpp"

namespace retryproof::provider {

struct TlsOptions {
  bool generate = false;  // --tls: a certificate made at start
  std::string certificate;
  std::string key;
};

// --tls, or --tls-cert FILE with --tls-key FILE.
void add_tls_options(CLI::App& command, TlsOptions& tls);

// --tls-cert/--tls-key: the user's certificate, read and checked now into server.tls, so
// that a bad file is a usage error that names it rather than a failure at the first
// handshake. Throws std::runtime_error.
void load_tls_files(const TlsOptions& tls, ServerOptions& server);

// --tls: a CA and a certificate for localhost made now, into server.tls. The CA's file is
// "ca.pem" in the directory returned, which lives (and is removed) with it; nothing without
// --tls.
std::unique_ptr<TempDir> generate_tls(const TlsOptions& tls, ServerOptions& server);

// The first line, where to connect (`url`); with a generated certificate, the second,
// "CA file: PATH": what a client must trust to believe it. Flushed.
void print_first_lines(std::ostream& out, const std::string& url, const TempDir* tls_files);

}  // namespace retryproof::provider
