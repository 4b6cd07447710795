
	ONNXOPSET
"com.acme.vision(2\Fused activations, Gaussian blur, bfloat16 support in convolutions; LegacyResize deprecated.B;
BlurR/Box blur with a square window of `size` pixels.Bk
ColorConvertRWConverts images between colour spaces, channel-last layout; 16-bit images are accepted.Bc
ConcatFeaturesRMJoins feature maps of one type along `axis`; all other dimensions must agree.BO
DecodeImageR<Decodes a JPEG or PNG byte stream into an `(H, W, C)` image.Bã
	FusedConvRÑA 2-D convolution followed by an optional bias add and an activation, computed in one kernel.

`activation` picks the function applied to every output element; `none` keeps the
plain convolution of version 1.
B\
GaussianBlurRHBlurs each channel with a Gaussian kernel of standard deviation `sigma`.BÊ
LegacyResizeRµDEPRECATED: this operator version is deprecated.

Deprecated: use `Resize` of the default domain, which covers every mode this
operator had. Semantics are unchanged from version 1.
BÓ
NonMaxSuppressionLiteRµGreedy non-maximum suppression for a single class. Boxes are visited by decreasing
score; a box is dropped when its intersection-over-union with a kept box exceeds
`iou_threshold`.
B[
	NormalizeRJPer-channel normalisation `Y = (X - mean[c]) / std[c]` over an NCHW batch.BL
SplitChannelsR7Splits an NCHW batch into one tensor per channel group.