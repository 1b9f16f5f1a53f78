"""freeze"""
