
	ONNXOPSET"org.example.abc(2 A updated (to A'), C introduced.B1
AR(Returns its input multiplied by `scale`.B>
BR5Adds two tensors of the same type element by element.B0
CR'Sums any number of tensors of one type.