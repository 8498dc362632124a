console.log('psp-reference');
