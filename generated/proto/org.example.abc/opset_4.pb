
	ONNXOPSET"org.example.abc(2A removed, C updated (to C').B>
BR5Adds two tensors of the same type element by element.BR
CRISums any number of tensors of one type; integer tensors are accepted too.