import CPeezRSVG
import Foundation

/// Where an SVG document puts ink, as librsvg draws it (text shaped by Pango with the fonts of the machine): the
/// document is drawn on a canvas wider than itself, so whatever it draws past its edges shows.
enum SVGInk {
    /// The first and last columns with ink, counted from the document's left edge (negative: past it), of `svg`
    /// drawn at one pixel a unit with `pad` units more on each side; nil for a blank document.
    static func columns(_ svg: String, pad: Int = 120) throws -> ClosedRange<Int>? {
        guard let box = svg.firstMatch(of: /viewBox="0 0 ([0-9.]+) ([0-9.]+)"/), let width = Double(box.1), let height = Double(box.2) else {
            throw Failure("no viewBox in the document")
        }
        let widened = svg.replacingCharacters(in: box.range, with: "viewBox=\"\(-pad) 0 \(width + Double(2 * pad)) \(height)\"")
        let pixelsWide = Int(width) + 2 * pad
        let pixelsHigh = Int(height.rounded(.up))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixelsWide), Int32(pixelsHigh)) else { throw Failure("no surface") }
        defer { cairo_surface_destroy(surface) }
        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(widened.utf8)
        guard let handle = bytes.withUnsafeBufferPointer({ rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }) else {
            throw Failure("not an SVG document")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(pixelsWide), height: Double(pixelsHigh))
        guard rsvg_handle_render_document(handle, context, &viewport, &error) != 0 else { throw Failure("not drawn") }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let pixels = cairo_image_surface_get_data(surface)!
        var first: Int?
        var last: Int?
        for x in 0..<pixelsWide {
            for y in 0..<pixelsHigh where pixels[y * stride + x * 4 + 3] > 0 {
                first = first ?? x
                last = x
                break
            }
        }
        guard let first, let last else { return nil }
        return (first - pad)...(last - pad)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
