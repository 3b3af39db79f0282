import CPeezRSVG
import Foundation

/// Pages drawn as SVG documents, written as one PDF: librsvg (Debian's `librsvg2`) lays each page out, text
/// shaped by Pango (Arabic joined and right to left), onto a cairo PDF surface. The pages are the service's
/// own documents, never a client's.
public enum ReportPDF {
    /// What went wrong writing the PDF, for a person.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `pages` (A4 SVG documents, 595 × 842 points) to `path`.
    public static func write(_ pages: [String], to path: String) throws {
        guard let surface = cairo_pdf_surface_create(path, 595.28, 841.89) else { throw Failure(description: "cannot create \(path)") }
        try render(pages, on: surface, what: path)
    }

    /// `pages` (A4 SVG documents, 595 × 842 points) as the bytes of one PDF, made in memory.
    public static func bytes(_ pages: [String]) throws -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        guard let surface = cairo_pdf_surface_create_for_stream(write, closure, 595.28, 841.89) else {
            throw Failure(description: "cannot create a PDF in memory")
        }
        try withExtendedLifetime(sink) { try render(pages, on: surface, what: "the PDF") }
        return sink.bytes
    }

    /// Draws `pages` on `surface`, one page each, finishes it and releases it.
    private static func render(_ pages: [String], on surface: OpaquePointer, what: String) throws {
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cannot write \(what): \(String(cString: cairo_status_to_string(cairo_surface_status(surface))))")
        }
        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        for (number, page) in pages.enumerated() {
            var error: UnsafeMutablePointer<GError>?
            let bytes = Array(page.utf8)
            let handle = bytes.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
            guard let handle else { throw Failure(description: "page \(number + 1) is not an SVG document: \(message(error))") }
            defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
            var viewport = RsvgRectangle(x: 0, y: 0, width: 595.28, height: 841.89)
            guard rsvg_handle_render_document(handle, context, &viewport, &error) != 0 else {
                throw Failure(description: "page \(number + 1) could not be drawn: \(message(error))")
            }
            cairo_show_page(context)
        }
        cairo_surface_finish(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cannot write \(what): \(String(cString: cairo_status_to_string(cairo_surface_status(surface))))")
        }
    }

    private static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
