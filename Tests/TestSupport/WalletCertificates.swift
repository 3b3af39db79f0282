/// A stand-in for Apple's Wallet signing chain, made with the real `openssl` command for one test: a root CA
/// (Apple's root), a WWDR intermediate CA it signed, and a Pass Type ID certificate the intermediate signed, whose
/// subject carries the pass type id as UID and the team id as OU, as Apple's do. RSA 2048 throughout; two days.
public struct WalletCertificates: Sendable {
    public static let passTypeIdentifier = "pass.dz.peez.test"
    public static let teamIdentifier = "PEEZTEAM42"

    public let root: String
    public let intermediate: String
    public let certificate: String
    /// The pass type certificate's private key, mode 0600.
    public let key: String
    /// A CA that issued nothing here: a wrong WWDR.
    public let strangerCA: String

    /// A chain for `passTypeIdentifier` and `teamIdentifier`, valid for two days; with `passCertificateEnded`,
    /// the pass type certificate ended on 1 January 2025 (issued by `openssl ca`, which can date it in the past).
    public init(
        in folder: TemporaryFolder,
        passTypeIdentifier: String = passTypeIdentifier,
        teamIdentifier: String = teamIdentifier,
        passCertificateEnded: Bool = false
    ) throws {
        root = folder.file("wallet-root.pem")
        intermediate = folder.file("wallet-wwdr.pem")
        certificate = folder.file("wallet-pass.pem")
        key = folder.file("wallet-pass.key")
        strangerCA = folder.file("wallet-stranger.pem")
        let script = """
            set -e
            cd '\(folder.path)'
            key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }
            key wallet-root.key; key wallet-wwdr.key; key wallet-pass.key; key wallet-stranger.key
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > ca.ext
            printf 'basicConstraints=critical,CA:FALSE\\nkeyUsage=critical,digitalSignature\\n' > pass.ext
            openssl req -x509 -new -key wallet-root.key -subj '/CN=Test Apple Root CA/O=PEEZ tests' -days 2 -sha256 \
                -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' -out wallet-root.pem
            openssl req -x509 -new -key wallet-stranger.key -subj '/CN=Some Other CA' -days 2 -sha256 \
                -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' -out wallet-stranger.pem
            openssl req -new -key wallet-wwdr.key -subj '/CN=Test Apple Worldwide Developer Relations Certification Authority/OU=G4' -out wwdr.csr
            openssl x509 -req -in wwdr.csr -CA wallet-root.pem -CAkey wallet-root.key -CAcreateserial -days 2 -sha256 -extfile ca.ext -out wallet-wwdr.pem 2>/dev/null
            openssl req -new -key wallet-pass.key -subj '/UID=\(passTypeIdentifier)/CN=Pass Type ID: \(passTypeIdentifier)/OU=\(teamIdentifier)/O=PEEZ/C=DZ' -out pass.csr
            if [ '\(passCertificateEnded)' = true ]; then
                mkdir -p ca/newcerts; : > ca/index.txt; echo 01 > ca/serial
                printf '[ca]\\ndefault_ca = test\\n[test]\\ndir = ./ca\\ndatabase = ./ca/index.txt\\nnew_certs_dir = ./ca/newcerts\\nserial = ./ca/serial\\ndefault_md = sha256\\npolicy = any\\nunique_subject = no\\n[any]\\nUID = optional\\ncommonName = optional\\norganizationalUnitName = optional\\norganizationName = optional\\ncountryName = optional\\n' > ca.cnf
                openssl ca -batch -config ca.cnf -cert wallet-wwdr.pem -keyfile wallet-wwdr.key -in pass.csr -out wallet-pass.pem \\
                    -startdate 20240101000000Z -enddate 20250101000000Z -extfile pass.ext -notext -preserveDN 2>/dev/null
            else
                openssl x509 -req -in pass.csr -CA wallet-wwdr.pem -CAkey wallet-wwdr.key -CAcreateserial -days 2 -sha256 -extfile pass.ext -out wallet-pass.pem 2>/dev/null
            fi
            chmod 600 wallet-pass.key
            [ '\(passCertificateEnded)' = true ] || openssl verify -CAfile wallet-root.pem -untrusted wallet-wwdr.pem wallet-pass.pem >/dev/null
            """
        let result = try ProcessRunner.run(["bash", "-c", script])
        guard result.status == 0 else { throw TestCertificateError(message: result.standardError) }
    }
}
