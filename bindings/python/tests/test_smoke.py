def test_import():
    import pctr
