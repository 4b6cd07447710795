
	ONNXOPSET"org.example.abc(2A introduced.B%
ARReturns its input unchanged.