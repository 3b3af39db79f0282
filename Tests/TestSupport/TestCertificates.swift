/// A certificate chain made with the real `openssl` command for one test: a root CA (the file a client is told
/// to trust), an intermediate CA, and a server certificate for `localhost` and 127.0.0.1 that the intermediate
/// signed. The files expire in two days; the server key is mode 0600.
public struct TestCertificates: Sendable {
    /// The root CA certificate: what a client trusts.
    public let rootCertificate: String
    /// The server certificate followed by the intermediate's: what a server presents.
    public let serverChain: String
    /// The server certificate's private key.
    public let serverKey: String

    public init(in folder: TemporaryFolder) throws {
        rootCertificate = folder.file("root.pem")
        serverChain = folder.file("server-chain.pem")
        serverKey = folder.file("server.key")
        let script = """
            set -e
            cd '\(folder.path)'
            key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
            key root.key; key intermediate.key; key server.key
            printf 'basicConstraints=critical,CA:TRUE,pathlen:0\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > intermediate.ext
            printf 'basicConstraints=critical,CA:FALSE\\nkeyUsage=critical,digitalSignature\\nextendedKeyUsage=serverAuth\\nsubjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
            openssl req -x509 -new -key root.key -subj '/CN=PEEZ Test Root CA' -days 2 -sha256 -extensions v3_ca \
                -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' -out root.pem
            openssl req -new -key intermediate.key -subj '/CN=PEEZ Test Intermediate CA' -out intermediate.csr
            openssl x509 -req -in intermediate.csr -CA root.pem -CAkey root.key -CAcreateserial -days 2 -sha256 \
                -extfile intermediate.ext -out intermediate.pem 2>/dev/null
            openssl req -new -key server.key -subj '/CN=localhost' -out server.csr
            openssl x509 -req -in server.csr -CA intermediate.pem -CAkey intermediate.key -CAcreateserial -days 2 -sha256 \
                -extfile server.ext -out server.pem 2>/dev/null
            cat server.pem intermediate.pem > server-chain.pem
            chmod 600 server.key
            openssl verify -CAfile root.pem -untrusted intermediate.pem server.pem >/dev/null
            """
        let result = try ProcessRunner.run(["bash", "-c", script])
        guard result.status == 0 else { throw TestCertificateError(message: result.standardError) }
    }
}

/// openssl could not make the chain.
public struct TestCertificateError: Error { public let message: String }
