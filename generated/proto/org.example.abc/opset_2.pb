
	ONNXOPSET"org.example.abc(2B introduced.B%
ARReturns its input unchanged.B>
BR5Adds two tensors of the same type element by element.