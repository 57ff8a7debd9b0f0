// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A throwaway certificate authority for the TLS tests, made in memory with
// OpenSSL's C API (EC P-256 keys, SHA-256), so the tests need no openssl
// binary and no files made at build time.

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace streamt::test {

struct evp_pkey_free {
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};
struct x509_free {
  void operator()(X509* p) const noexcept { X509_free(p); }
};
struct bio_free {
  void operator()(BIO* p) const noexcept { BIO_free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, evp_pkey_free>;
using x509_ptr = std::unique_ptr<X509, x509_free>;
using bio_ptr = std::unique_ptr<BIO, bio_free>;

inline void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test certificate: ") + what);
}

inline std::string drain(BIO* b) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(b, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

struct issued {
  pkey_ptr key;
  x509_ptr cert;
  std::string cert_pem() const {
    bio_ptr b(BIO_new(BIO_s_mem()));
    check(PEM_write_bio_X509(b.get(), cert.get()) == 1, "write certificate");
    return drain(b.get());
  }
  // The key in PEM, encrypted with `password` (AES-256-CBC) when it is not empty.
  std::string key_pem(const std::string& password = {}) const {
    bio_ptr b(BIO_new(BIO_s_mem()));
    const EVP_CIPHER* cipher = password.empty() ? nullptr : EVP_aes_256_cbc();
    auto* pass =
        password.empty() ? nullptr : reinterpret_cast<unsigned char*>(const_cast<char*>(password.data()));
    check(PEM_write_bio_PrivateKey(b.get(), key.get(), cipher, pass, static_cast<int>(password.size()),
                                   nullptr, nullptr) == 1,
          "write key");
    return drain(b.get());
  }
};

inline void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `common_name`; self-signed (a CA) when `issuer` is null,
// else signed by it, for the names in `alt_names` ("IP:127.0.0.1,DNS:x").
inline issued make_certificate(const std::string& common_name, const issued* issuer, const char* alt_names,
                               long serial) {
  issued out;
  out.key.reset(EVP_EC_gen("P-256"));
  check(out.key != nullptr, "key");
  out.cert.reset(X509_new());
  X509* c = out.cert.get();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c), 24 * 3600);
  X509_set_pubkey(c, out.key.get());
  X509_NAME* name = X509_get_subject_name(c);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509* signer = issuer ? issuer->cert.get() : c;
  X509_set_issuer_name(c, X509_get_subject_name(signer));
  if (!issuer) {
    add_extension(c, signer, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(c, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(c, signer, NID_basic_constraints, "CA:FALSE");
    if (alt_names) add_extension(c, signer, NID_subject_alt_name, alt_names);
  }
  check(X509_sign(c, issuer ? issuer->key.get() : out.key.get(), EVP_sha256()) > 0, "sign");
  return out;
}

}  // namespace streamt::test
