import Foundation
import TestSupport
import Testing
import WalletPass

@Suite("APNs provider tokens (ES256 JWT)")
struct APNsTokenTests {
    @Test func aTokenVerifiesWithThePublicKeyInAnotherImplementationAndCarriesTheKeyAndTeam() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let made = try ProcessRunner.run([
            "bash", "-c",
            "cd '\(folder.path)' && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out apns.p8 && openssl pkey -in apns.p8 -pubout -out apns.pub",
        ])
        #expect(made.status == 0, "\(made.standardError)")
        let key = try APNsAuthenticationKey(
            pem: Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("apns.p8")))),
            keyID: "ABC123DEFG",
            teamID: "PEEZTEAM42"
        )
        let token = try key.token(issuedAt: 1_795_000_000)
        // Python's cryptography package checks the signature: r‖s over "header.claims" with SHA-256 on P-256.
        let check = """
            import base64, json, sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec, utils
            token, path = sys.argv[1], sys.argv[2]
            def b64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            header, claims, signature = token.split(".")
            raw = b64(signature)
            assert len(raw) == 64
            key = serialization.load_pem_public_key(open(path, "rb").read())
            key.verify(utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                       (header + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
            print(json.dumps([json.loads(b64(header)), json.loads(b64(claims))], sort_keys=True))
            """
        let verified = try ProcessRunner.run(["python3", "-c", check, token, folder.file("apns.pub")])
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(
            verified.standardOutput.trimmingCharacters(in: .newlines)
                == #"[{"alg": "ES256", "kid": "ABC123DEFG"}, {"iat": 1795000000, "iss": "PEEZTEAM42"}]"#
        )

        _ = try ProcessRunner.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", folder.file("ed.pem")])
        #expect(throws: WalletError(.invalidConfiguration, "")) {
            try APNsAuthenticationKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("ed.pem")))), keyID: "K", teamID: "T")
        }
    }
}
