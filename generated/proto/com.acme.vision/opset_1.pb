
	ONNXOPSET	"com.acme.vision(2First release of the domain.B;
BlurR/Box blur with a square window of `size` pixels.BO
ColorConvertR;Converts images between colour spaces, channel-last layout.Bc
ConcatFeaturesRMJoins feature maps of one type along `axis`; all other dimensions must agree.BO
DecodeImageR<Decodes a JPEG or PNG byte stream into an `(H, W, C)` image.B¶
	FusedConvR¤A 2-D convolution followed by an optional bias add, computed in one kernel.

The output has shape `(N, M, H_out, W_out)` where `M` is the number of filters in `W`.
BS
LegacyResizeR?Resizes the two spatial axes of an NCHW batch by fixed factors.BÓ
NonMaxSuppressionLiteRµGreedy non-maximum suppression for a single class. Boxes are visited by decreasing
score; a box is dropped when its intersection-over-union with a kept box exceeds
`iou_threshold`.
B[
	NormalizeRJPer-channel normalisation `Y = (X - mean[c]) / std[c]` over an NCHW batch.BL
SplitChannelsR7Splits an NCHW batch into one tensor per channel group.