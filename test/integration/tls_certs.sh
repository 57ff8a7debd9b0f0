# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# make_ca_and_broker_cert DIR: a private CA (DIR/ca.pem, DIR/ca.key) and one
# broker certificate it signed, for 127.0.0.1 and localhost, as
# tools/kafka-local --tls-dir wants it (DIR/broker.pem: the unencrypted key,
# then the certificate). Every node of a cluster can use it: they all listen
# on 127.0.0.1, which the client's https endpoint identification checks
# against the IP SAN. Sourced by the tests that start a TLS broker; runs in
# DIR, its openssl chatter on stderr.
make_ca_and_broker_cert() {
  # Chained with &&: a caller testing the status (`|| exit`) turns off set -e
  # in here, and any failed step must still fail the whole.
  (
    cd "$1" &&
      openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=streamt test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" &&
      openssl req -newkey rsa:2048 -nodes -keyout broker.key -out broker.csr -subj "/CN=localhost" &&
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >broker.ext &&
      openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out broker.crt -days 2 \
        -extfile broker.ext &&
      cat broker.key broker.crt >broker.pem
  )
}
